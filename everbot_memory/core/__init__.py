"""The pure core: the entry model, the rule constants, text, scoring, merging and redaction.

Nothing here reads a file, a clock or the network: time comes in as ``now`` (or through
:func:`everbot_memory.core.clock.utcnow`), text comes in as strings. Every layer above may
import from here; nothing here imports from above.
"""
