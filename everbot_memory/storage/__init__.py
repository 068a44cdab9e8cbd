"""Storage: MEMORY.md and the files beside it on disk.

- :mod:`.paths`: where every side file lives, derived in one place;
- :mod:`.atomic`: the one atomic write routine (temp file, fsync, rename, fsync the folder);
- :mod:`.lock`: the writers' lock;
- :mod:`.backend`: the small protocol the store writes through (read bytes with a version;
  write if the version still matches), and the local-file backend;
- :mod:`.store`: load and save with the hash check, the rebase onto an editor's change, and
  redaction;
- :mod:`.ledger` and :mod:`.queue`: the session ledger and the job queue's files.
"""
