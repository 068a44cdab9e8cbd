"""The MEMORY.md format: the grammar, text to :class:`Document` and back. Pure: it reads and
writes strings, never files.

- :mod:`.grammar`: the title, sections and the entry heading line;
- :mod:`.blocks`: the Markdown block structure (markdown-it-py, with a fast path);
- :mod:`.content` and :mod:`.meta`: an entry's content and its hidden metadata;
- :mod:`.parse` and :mod:`.render`: the tolerant reader and the one canonical writer.
"""

from .model import Document, Problem
from .parse import parse
from .render import render

__all__ = ["Document", "Problem", "parse", "render"]
