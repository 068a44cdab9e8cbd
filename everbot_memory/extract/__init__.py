"""Extraction: a finished conversation in, candidate memories out.

- :mod:`.transcripts`: reading conversations (Claude Code JSONL, chat-message JSON, text);
- :mod:`.base`: the :class:`~.base.Extractor` protocol and the check of an extractor's answer;
- :mod:`.summary`: the ``[id] content`` lines of known memories, written and read;
- :mod:`.rules`: the offline extractor (English, Chinese, dates, changed facts);
- :mod:`.contract` and :mod:`.claude`: the LLM prompt and schema, and the anthropic backend.

Nothing here touches MEMORY.md: the facade merges what an extractor proposes.
"""
