"""Recall: find memories, Active and Archived, by what a query says (seed Phase 2).

- :mod:`.index`: the BM25 index of a memory file, cached beside it, and the ranked search;
- :mod:`.embeddings`: the optional sentence model for semantic recall;
- :mod:`.vectors`: the memories' sentence vectors, cached beside the file;
- :mod:`.fusion`: the word and meaning rankings fused, with an absolute floor.
"""
