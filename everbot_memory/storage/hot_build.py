"""Building the hooks' caches (see :mod:`.hot`) for a version of the file a save writes.

A save pays for what it changed: each memory's part of the two files (its row, its search
tokens, its score until the next day of its decay) is kept by the process and reused while
the memory is the same; a process that built nothing yet takes the rows of the version it
read from the search file itself, by memory id, and any other memory's line and tokens by
its content's hash (``hook-memo.json``). Either way the files are what a build from nothing
gives (``tests/test_hot.py`` checks it on random edit sequences).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from ..core import ranking
from ..core.entry import MemoryEntry
from .hot import MEMO_FILE, MEMO_VERSION, PROMPT_FILE, SEARCH_FILE, VERSION, file_digest
from .paths import SideFiles

__all__ = ["Built", "build", "prepare", "write"]

_DAY = 86_400


def _profile_parts(
    lines: Sequence[str], group_of: dict[str, _Part]
) -> tuple[list[str], list[list[str]]]:
    """The profile as the session-start block shows it (data, made safe), and beside each
    shown line the groups of the memories it came from (for a filter), from one pass over
    the same items, so the two lists always line up."""
    from ..core.block import unseen_removed
    from ..core.profile import shown, sources_of
    from ..core.redaction import redact

    texts: list[str] = []
    groups: list[list[str]] = []
    for item in lines:
        for text in shown([item]):  # an item shows as one line, or none (a hidden label)
            texts.append(unseen_removed(redact(text).text))
            found = (group_of.get(i) for i in sources_of(item))
            groups.append(sorted({"none" if p is None else p.group for p in found}))
    return texts, groups


def _memo_key(content: str) -> str:
    import hashlib

    return hashlib.blake2b(content.encode("utf-8"), digest_size=12).hexdigest()


class _Part:
    """One memory's share of the two files, kept between the saves of a process: a memory
    that did not change is neither redacted, tokenized nor formatted again, and its score is
    worked out again only when a day of its decay has passed."""

    __slots__ = (
        "_json",
        "anchored",
        "entry",
        "expires",
        "group",
        "hidden",
        "indexed",
        "key",
        "length",
        "order",
        "replaced",
        "row",
        "score",
        "since",
        "until",
    )

    def __init__(self, entry: MemoryEntry, replaced: bool, key: str, row: str, indexed: str):
        base_score, base_at = entry.anchor
        self.entry, self.replaced, self.key = entry, replaced, key
        #: The memory's row and its line of the search tokens (see SearchRows).
        self.row, self.indexed = row, indexed
        self.anchored = (base_score, base_at.timestamp(), entry.last_activated.timestamp())
        self.length = indexed.count(" ") - 1 if len(indexed) > 3 else 0
        self.expires = entry.expires_at
        self.hidden = bool(entry.condensed_into)
        self.group = entry.group or "none"
        self.order = (entry.created_at, entry.id)  # ties of the prompt's order (file order)
        self._json: tuple[bytes, bytes, bytes] | None = None
        self.score, self.since, self.until = 0.0, 0.0, -1.0

    @property
    def line(self) -> str:
        """The memory's display line (the row's last field)."""
        return self.row.split("\t", 7)[7]

    @classmethod
    def made(cls, entry: MemoryEntry, replaced: bool, key: str, line: str, joined: str) -> _Part:
        """The part of ``entry``, whose display line and search tokens are ``line`` and
        ``joined``."""
        base_score, base_at = entry.anchor
        fields = (
            entry.id,
            repr(base_score),
            repr(base_at.timestamp()),
            repr(entry.last_activated.timestamp()),
            "1" if replaced else "0",
            entry.category,
            entry.group or "",
            line,
        )
        return cls(entry, replaced, key, "\t".join(fields), f" {joined} \n")

    def json(self) -> tuple[bytes, bytes, bytes]:
        """The row, the token line (inside its quotes: a JSON string's escapes stand for one
        character each, so the lines' escapes joined are the text's) and the content hash,
        as JSON; made once."""
        if self._json is None:
            self._json = (_string(self.row), _string(self.indexed)[1:-1], _string(self.key))
        return self._json

    def score_at(self, stamp: float) -> float:
        """``ranking.decayed`` at ``stamp``; the same for the rest of the day of decay."""
        if not self.since < stamp < self.until:
            self.score = ranking.decayed(*self.anchored, stamp)
            # Decay moves by whole days since the last activation: the score holds until the
            # next of them (a second short of each end, so float rounding never matters).
            last = self.anchored[2]
            start = last + (stamp - last) // _DAY * _DAY
            self.since, self.until = start + 1.0, start + _DAY - 1.0
        return self.score

    def shown(self, now: datetime) -> bool:
        """Not expired and not condensed into another: a prompt may show it."""
        return not self.hidden and (self.expires is None or self.expires > now)


def _prompt_key(part: _Part) -> tuple[float, datetime, str]:
    return (-part.score, *part.order)


#: What the last build in this process made for each memory, by memory file and entry id.
_BUILT: dict[str, dict[str, _Part]] = {}
_BUILT_FILES = 8


#: What a new process knows of the last build from its files: each row, token line, content
#: hash and replaced flag by memory id, and the entries of the version they were built for.
_Seed = tuple[dict[str, tuple[str, str, str, bool]], dict[str, "MemoryEntry"]]


def _parts(
    entries: Sequence[MemoryEntry],
    memo: Mapping[str, list[str]],
    built: dict[str, _Part],
    seed: _Seed | None = None,
) -> list[_Part]:
    """Each entry's part: the one ``built`` holds while the entry is the same, else its row
    from ``seed`` when it is an entry of the version the seed was built for, else made anew
    (its line and tokens from ``memo`` by its content's hash, when there)."""
    from ..core import prompt
    from ..core.redaction import redact
    from ..core.text import search_tokens

    rows, base = seed or ({}, {})
    replaced = {old for entry in entries for old in entry.replaces}
    parts: list[_Part] = []
    keep, get = parts.append, built.get  # on every memory of every save
    for entry in entries:
        flag = entry.id in replaced
        part = get(entry.id)
        if part is not None and part.replaced is flag:
            known = part.entry
            if known is entry or known == entry:
                keep(part)
                continue
        if base.get(entry.id) is entry:
            row = rows.get(entry.id)
            if row is not None and row[3] is flag:
                keep(_Part(entry, flag, row[2], row[0], row[1]))
                continue
        content_key = _memo_key(entry.content)
        found = memo.get(content_key)
        if isinstance(found, list) and len(found) == 2:
            line, joined = found
        else:
            # Secrets a person typed into the file are neither indexed nor shown.
            joined = " ".join(search_tokens(redact(entry.content).text))
            [line] = prompt.memory_lines([entry])
        keep(_Part.made(entry, flag, content_key, line, joined))
    return parts


def _by_group(parts: Sequence[_Part], now: datetime) -> dict[str, Any]:
    """For each group (``none``: memories without one), the strongest lines a session-start
    block filtered to that group shows, with their scores (each part's score at ``now``), so
    a filter of several groups merges them without the file."""

    from ..core.rules import PROMPT_MIN_SCORE

    grouped: dict[str, list[_Part]] = {}
    for part in parts:
        grouped.setdefault(part.group, []).append(part)
    out: dict[str, Any] = {}
    for name, members in grouped.items():
        everyone = [p for p in members if p.score >= PROMPT_MIN_SCORE and p.shown(now)]
        if not everyone:
            continue
        chosen = _strongest(everyone)
        out[name] = {
            "lines": [p.line for p in chosen],
            "ids": [p.entry.id for p in chosen],
            "scores": [round(p.score, 6) for p in chosen],
            "total": len(everyone),
        }
    return out


def build(
    data: bytes,
    entries: Sequence[MemoryEntry],
    now: datetime,
    memo: Mapping[str, list[str]] | None = None,
    profile: Sequence[str] = (),
    built: dict[str, _Part] | None = None,
    sha256: str | None = None,
    seed: _Seed | None = None,
) -> tuple[dict[str, Any], dict[str, Any], list[_Part], dict[str, _Part]]:
    """The contents of the two files for a memory file of ``data`` holding ``entries``, and
    each memory's part of them, in order and by id. ``sha256``: the hash of ``data``, when
    known already.

    ``memo`` is the last save's (each memory's display line and search tokens by its
    content's hash), ``built`` the parts the last build in this process made, ``seed`` the
    rows of the last build's files (see :func:`_read_memo`): a memory that did not change is
    neither redacted nor tokenized again, so a save of a large file pays only for what it
    changed. Either way the result is what a build from nothing gives.
    """
    from itertools import accumulate

    from ..core.rules import PROMPT_MIN_SCORE

    parts = _parts(entries, {} if memo is None else memo, built or {}, seed)
    stamp = now.timestamp()
    # When what is built now stops being right: the next UTC midnight (scores decay by the
    # day), or the next expiry of a memory if that comes first.
    until = (stamp // _DAY + 1) * _DAY
    eligible: list[_Part] = []
    worth = 0
    for part in parts:  # every memory of every save: the score's own check inlined
        score = part.score if part.since < stamp < part.until else part.score_at(stamp)
        expires = part.expires
        if expires is not None:
            at = expires.timestamp()
            if stamp < at < until:
                until = at
            if expires <= now:
                continue
        if score >= PROMPT_MIN_SCORE:
            worth += 1
            if not part.hidden:
                eligible.append(part)
    chosen = _strongest(eligible)
    by_id = {p.entry.id: p for p in parts}
    key = {
        "version": VERSION,
        "sha256": sha256 or file_digest(data),
        "built": (stamp // _DAY) * _DAY,
        "until": until,
    }
    profile_texts, profile_groups = _profile_parts(profile, by_id)
    prompt_part = {
        **key,
        "lines": [p.line for p in chosen],
        "ids": [p.entry.id for p in chosen],
        "total": worth,
        "groups": _by_group(parts, now) if any(p.entry.group for p in parts) else {},
        "profile": profile_texts,
        # The groups of the memories each shown profile line came from, for a filter.
        "profile_groups": profile_groups,
    }
    lengths = [p.length for p in parts]
    indexed = [p.indexed for p in parts]
    search_part = {
        **key,
        "rows": [p.row for p in parts],
        "tokens": "".join(indexed),
        "starts": list(accumulate(map(len, indexed[:-1]), initial=0)) if parts else [],
        "lengths": lengths,
        "average": (sum(lengths) / len(lengths)) if lengths else 0.0,
    }
    return prompt_part, search_part, parts, by_id


def _strongest(eligible: list[_Part]) -> list[_Part]:
    """The prompt's memories: the strongest first, ties in file order, at most top-k
    (what sorting them all gives, sorting only the few that can be among them)."""
    from ..core.rules import PROMPT_TOP_K

    if len(eligible) > PROMPT_TOP_K:
        import heapq

        floor = heapq.nlargest(PROMPT_TOP_K, [p.score for p in eligible])[-1]
        eligible = [p for p in eligible if p.score >= floor]
    return sorted(eligible, key=_prompt_key)[:PROMPT_TOP_K]


def write(
    memory_path: str | os.PathLike[str],
    data: bytes,
    entries: Sequence[MemoryEntry],
    now: datetime | None = None,
    profile: Sequence[str] = (),
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Build the two files for the file just written and write them; a folder that cannot
    be written costs the next hook a rebuild, nothing else. Returns what was built."""
    built = prepare(memory_path, data, entries, now, profile)
    built.put()
    return built.prompt, built.search


class Built:
    """The hooks' files built for one version of a memory file, to write once it is on disk."""

    def __init__(
        self,
        files: SideFiles,
        prompt: dict[str, Any],
        search: dict[str, Any],
        parts: list[_Part],
        whole: bool = True,
    ) -> None:
        self.files, self.prompt, self.search, self._parts = files, prompt, search, parts
        #: Encode the files whole (the first build of a process: no part's JSON is known),
        #: else join each part's own.
        self._whole = whole

    def put(self) -> None:
        """Write the files (a folder that cannot be written costs the next hook a rebuild)."""
        from .atomic import write_atomically

        if self._whole:
            memo = {"version": MEMO_VERSION, "sha256": self.search["sha256"]}
            search = _encoded(self.search)
            keys = _encoded({**memo, "keys": [p.key for p in self._parts]})
        else:
            search = _encoded_search(self.search, self._parts)
            keys = _encoded_memo(self.search["sha256"], self._parts)
        payloads = (
            (PROMPT_FILE, _encoded(self.prompt)),
            (SEARCH_FILE, search),
            # The memo last: one that does not match the search file beside it is not read.
            (MEMO_FILE, keys),
        )
        for file_name, payload in payloads:
            try:
                # Checked by their key when read, and rebuilt when they do not check out: a
                # power cut that empties one costs a rebuild, so they are not fsynced.
                write_atomically(self.files.hook_file(file_name), payload, durable=False)
            except OSError:
                break


def prepare(
    memory_path: str | os.PathLike[str],
    data: bytes,
    entries: Sequence[MemoryEntry],
    now: datetime | None = None,
    profile: Sequence[str] = (),
    sha256: str | None = None,
    base: tuple[str, Sequence[MemoryEntry]] | None = None,
) -> Built:
    """Build the two files for a memory file of ``data`` holding ``entries`` (``sha256``:
    the hash of ``data``, when known), to :meth:`Built.put` once ``data`` is on disk.

    What the last build in this process made for the same file is reused for the memories
    that did not change; a process that built none reads the files the last build left: the
    rows of ``base`` (a version's hash, and its entries as parsed) when they were built for
    that version, and the memo.
    """
    from datetime import datetime, timezone

    files = SideFiles.of(memory_path)
    name = str(files.target)
    known = _BUILT.pop(name, None)
    memo, seed = _read_memo(files, base) if known is None else ({}, None)
    prompt_part, search_part, parts, by_id = build(
        data, entries, now or datetime.now(timezone.utc), memo, profile, known, sha256, seed
    )
    while len(_BUILT) >= _BUILT_FILES:
        _BUILT.pop(next(iter(_BUILT)))
    # Each part holds only what its entry says, so keeping them is right even if this
    # version is never written.
    _BUILT[name] = by_id
    return Built(files, prompt_part, search_part, parts, whole=known is None)


def _encoded(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _string(text: str) -> bytes:
    """``text`` as a JSON string, as :func:`_encoded` writes it (the encoder's own function
    for strings: ``json.dumps`` makes a new encoder on each call, with these options)."""
    return json.encoder.encode_basestring(text).encode("utf-8")


def _encoded_search(part: dict[str, Any], parts: Sequence[_Part]) -> bytes:
    """``part`` as JSON, its rows and tokens joined from each memory's own encoded ones
    (what encoding it whole gives, without encoding again what did not change)."""
    head = {k: v for k, v in part.items() if k not in ("rows", "tokens")}
    return b"".join(
        [
            _encoded(head)[:-1],
            b',"tokens":"',
            b"".join([p.json()[1] for p in parts]),
            b'","rows":[',
            b",".join([p.json()[0] for p in parts]),
            b"]}",
        ]
    )


def _encoded_memo(sha256: str, parts: Sequence[_Part]) -> bytes:
    """The memo beside a search file: its hash, and each row's content hash."""
    head = _encoded({"version": MEMO_VERSION, "sha256": sha256})
    return b"".join([head[:-1], b',"keys":[', b",".join([p.json()[2] for p in parts]), b"]}"])


def _read_memo(
    files: SideFiles, base: tuple[str, Sequence[MemoryEntry]] | None = None
) -> tuple[Mapping[str, list[str]], _Seed | None]:
    """What the files the last build wrote tell a process that built nothing yet: each
    memory's display line and search tokens by its content's hash ({} when the memo does not
    match the search file), and, when the search file was built for ``base``'s version, each
    row by memory id beside ``base``'s entries."""
    try:
        with open(files.hook_file(MEMO_FILE), "rb") as handle:
            memo = json.loads(handle.read())
        with open(files.hook_file(SEARCH_FILE), "rb") as handle:
            search = json.loads(handle.read())
    except (OSError, ValueError):
        return {}, None
    try:
        if memo["version"] != MEMO_VERSION or search["version"] != VERSION:
            return {}, None
        if memo["sha256"] != search["sha256"]:
            return {}, None  # a save died between the two: the memo is not this index's
        keys, rows, tokens = memo["keys"], search["rows"], search["tokens"]
        starts = [*search["starts"], len(tokens)]
        if not len(keys) == len(rows) == len(starts) - 1:
            return {}, None
        by_id: dict[str, tuple[str, str, str, bool]] = {}
        for number, (content_key, row) in enumerate(zip(keys, rows, strict=True)):
            fields = str(row).split("\t", 5)
            indexed = tokens[starts[number] : starts[number + 1]]
            by_id[fields[0]] = (str(row), indexed, str(content_key), fields[4] == "1")
    except (KeyError, TypeError, IndexError, AttributeError):
        return {}, None
    found = _Memo(by_id.values())
    if base is None or base[0] != search["sha256"] or len(by_id) != len(rows):
        return found, None  # built for another version (or an id twice): by content only
    return found, (by_id, {e.id: e for e in base[1]})


class _Memo(Mapping[str, list[str]]):
    """Each memory's display line and search tokens by its content's hash, from the rows of
    a search file; made when first asked (a save that finds every memory's row by its id
    never asks)."""

    def __init__(self, rows: Iterable[tuple[str, str, str, bool]]) -> None:
        self._rows: Iterable[tuple[str, str, str, bool]] | None = rows
        self._found: dict[str, list[str]] = {}

    def _made(self) -> dict[str, list[str]]:
        if self._rows is not None:
            for row, indexed, content_key, _ in self._rows:
                self._found[content_key] = [row.split("\t", 7)[7], indexed[1:-2]]
            self._rows = None
        return self._found

    def __getitem__(self, key: str) -> list[str]:
        return self._made()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._made())

    def __len__(self) -> int:
        return len(self._made())
