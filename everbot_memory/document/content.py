"""Content under an entry heading: plain lines, a ```` ```memory ```` fence, or a JSON string.

Content is written plain when it reads back exactly; otherwise in a fenced block, or, when it
holds control characters, as a JSON string in a ```` ```memory-json ```` fence. So no content
can create, hide or break another entry (the choice is made in
:func:`everbot_memory.document.render.render_content`).
"""

from __future__ import annotations

import json
import re

from .blocks import Block

__all__ = ["UNSAFE_RE", "decode_content", "escape_unsafe", "fence", "json_string"]

# Control characters (but tab and newline), and the characters editors treat as line breaks.
UNSAFE_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
_ESCAPE_RE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def escape_unsafe(json_text: str) -> str:
    """JSON text with the characters above as ``\\uXXXX`` escapes, which JSON reads back."""
    return _ESCAPE_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text)


def fence(content: str, info: str) -> str:
    """``content`` in a backtick fence longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    marker = "`" * max(3, longest + 1)
    return f"{marker}{info}\n{content}\n{marker}"


def json_string(content: str) -> str:
    """``content`` as a JSON string with every unsafe character escaped."""
    return escape_unsafe(json.dumps(content, ensure_ascii=False))


def _fence_body(lines: list[str], block: Block) -> str:
    opening = lines[block.start].lstrip()
    marker = opening[: len(opening) - len(opening.lstrip(opening[0]))]
    body = lines[block.start + 1 : block.end]
    if body and body[-1].strip().startswith(marker) and not body[-1].strip().strip(marker[0]):
        body = body[:-1]
    return "\n".join(body)


def decode_content(lines: list[str], content_blocks: list[Block], end: int) -> str:
    """The content an entry's blocks hold (``end``: one past its last line)."""
    if len(content_blocks) == 1 and content_blocks[0].kind == "fence":
        block = content_blocks[0]
        if block.text == "memory":
            return _fence_body(lines, block)
        if block.text == "memory-json":
            value = json.loads(_fence_body(lines, block))
            if not isinstance(value, str):
                raise ValueError("memory-json block does not hold a string")
            return value
    return "\n".join(lines[content_blocks[0].start : end])
