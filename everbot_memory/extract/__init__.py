"""Extraction: a finished conversation in, candidate memories out.

- :mod:`.transcripts`: reading conversations (Claude Code JSONL, chat-message JSON, text);
- :mod:`.base`: the :class:`~.base.Extractor` protocol and the check of an extractor's answer;
- :mod:`.summary`: the ``[id] content`` lines of known memories, written and read;
- :mod:`.rules`: the offline extractor (English, Chinese, dates, changed facts);
- :mod:`.contract`: the LLM prompt, the answer schema, its check and the repair request;
- :mod:`.llm`: the one session flow every LLM backend runs, sync or async;
- :mod:`.claude` (the Messages API), :mod:`.openai_chat` (OpenAI-compatible servers) and
  :mod:`.claude_cli` (the ``claude`` program): the LLM backends;
- :mod:`.child`: the mark of a program an extractor runs, so its hooks stay quiet.

Nothing here touches MEMORY.md: the facade merges what an extractor proposes.
"""
