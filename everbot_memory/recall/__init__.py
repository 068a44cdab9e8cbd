"""Recall: find memories, Active and Archived, by what a query says (seed Phase 2).

- :mod:`.index`: the BM25 index of a memory file, cached beside it, and the ranked search;
- :mod:`.embeddings`: optional sentence embeddings fused into relevance.
"""
