"""The hooks' fast path: the caches written on each save, their keys, the blocks they give,
and the two memories (the user's and a project's) the hooks read and feed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from conftest import make_entry
from freezegun import freeze_time

from everbot_memory import Memory, MemoryStore
from everbot_memory.core.block import Section, compose, encoded_length, prompt_block
from everbot_memory.core.text import CJK_RE, search_tokens
from everbot_memory.facade import hooks as service
from everbot_memory.recall.index import RecallIndex
from everbot_memory.storage.hot import HotFiles
from everbot_memory.storage.locations import Place, memory_places
from everbot_memory.storage.paths import SideFiles

# The caches a save writes are keyed by the day of the save. The clock is held at noon (and
# ticks from there) for every test here, so that a save and the times a test reads the caches
# at fall on the same UTC day whenever the suite runs, even across a real midnight.
NOW = datetime(2026, 6, 15, 12, 0, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def _clock_at_noon() -> Iterator[None]:
    with freeze_time(NOW, tick=True):
        yield


TEXTS = [
    "The user prefers pytest over unittest for new projects.",
    "The user deploys the billing service every Friday afternoon.",
    "When Nginx returns 502 the user checks gunicorn first.",
    "The team decided to use PostgreSQL instead of MongoDB.",
    "用户喜欢简洁的代码风格，不喜欢过多注释",
    "用户每天早上 9 点查看 A 股行情，关注新能源板块",
    "The user's staging server is called atlas-7.",
    "The user is allergic to peanuts.",
    "用户的主要开发语言是 Python，常用 FastAPI 框架",
    "The user runs the test suite before every commit.",
]
QUERIES = [
    "which test framework does the user like?",
    "用户喜欢什么样的代码风格",
    "what is the staging server called",
    "Postgres or Mongo?",
    "A 股",
    "peanut allergy",
    "gunicorn 502",
    "completely unrelated words about sailing boats",
]


def _entries(n: int = len(TEXTS)) -> list:
    entries = []
    for i in range(n):
        at = NOW - timedelta(days=i * 3)
        entries.append(make_entry(f"e{i:05d}", TEXTS[i % len(TEXTS)], 0.3 + 0.06 * (i % 10), at=at))
    return entries


def _save(path: Path, entries: list) -> None:
    store = MemoryStore(path)
    store.load()
    store.save(entries)


def _single(term: str) -> bool:
    return len(term) == 1 and CJK_RE.match(term) is not None


def test_each_save_writes_both_caches_keyed_by_the_files_hash(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    _save(path, _entries())
    hot = HotFiles(path)
    now = NOW.timestamp()
    lines, rows = hot.prompt(now), hot.search(now)
    assert lines is not None and rows is not None
    assert len(rows.rows) == len(TEXTS)
    assert lines.lines and all(line.startswith("- ") for line in lines.lines)
    # An edit by hand changes the hash: both caches are stale until rebuilt.
    path.write_text(path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert HotFiles(path).prompt(now) is None and HotFiles(path).search(now) is None


@pytest.mark.parametrize("query", QUERIES)
def test_the_hooks_search_ranks_as_recall_does(tmp_path: Path, query: str) -> None:
    path = tmp_path / "MEMORY.md"
    _save(path, _entries(30))
    now = NOW + timedelta(hours=1)
    rows = HotFiles(path).search(now.timestamp())
    assert rows is not None
    fast = rows.search(search_tokens(query), now.timestamp(), 5, is_single=_single)
    full = RecallIndex.for_file(path).search(query, k=5, now=now)
    assert [hit[0] for hit in fast] == [hit.entry.id for hit in full]
    for (_, _, relevance, rank), hit in zip(fast, full, strict=True):
        assert relevance == pytest.approx(hit.relevance) and rank == pytest.approx(hit.rank)


def test_a_stale_cache_is_rebuilt_from_the_file_an_editor_changed(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    _save(path, _entries(3))
    text = path.read_text(encoding="utf-8")
    today = NOW.date().isoformat()
    hand = f"\n### preference | 0.9 | {today}\nThe user writes commit messages in French.\n"
    path.write_text(text.replace("## Archived Memories", hand + "\n## Archived Memories"))
    places = [Place("file", path)]
    block = service.session_start(places, "s1")
    assert "The user writes commit messages in French." in block
    assert HotFiles(path).prompt(datetime.now(timezone.utc).timestamp()) is not None  # rebuilt


def test_an_expired_todo_drops_out_at_its_expiry_not_at_midnight(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    base = datetime.now(timezone.utc).replace(microsecond=0)
    todo = make_entry(
        "t00001",
        "The user must renew the passport.",
        0.8,
        category="todo",
        at=base,
        expires_at=base + timedelta(hours=1),
    )
    _save(path, [todo, make_entry("p00001", "The user prefers tea.", 0.8, at=base)])
    places = [Place("file", path)]
    before = service.session_start(places, "s1", now=(base + timedelta(minutes=30)).timestamp())
    assert "passport" in before
    after = service.session_start(places, "s2", now=(base + timedelta(minutes=61)).timestamp())
    assert "passport" not in after and "The user prefers tea." in after


def test_a_new_day_rebuilds_the_cache(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    _save(path, _entries(3))
    tomorrow = (NOW + timedelta(days=1)).timestamp()
    assert HotFiles(path).prompt(tomorrow) is None  # built for today: stale tomorrow
    service.session_start([Place("file", path)], "s1", now=tomorrow)
    assert HotFiles(path).prompt(tomorrow) is not None


def test_the_block_is_capped_after_json_encoding_and_says_it_was_cut() -> None:
    chinese = [
        "- " + "用户喜欢在周末去山里徒步，并且总是带着相机拍摄风景照片。" * 9 for _ in range(40)
    ]
    quoted = ['- The user says "always quote paths" \\ and \n escapes ' * 6 for _ in range(40)]
    for lines in (chinese, quoted):
        section = Section("user", lines, [f"id{i}" for i in range(len(lines))], len(lines))
        block = compose([section], 10_000)
        assert encoded_length(block) <= 10_000
        assert block.splitlines()[-1].startswith("Cut to fit:")
        assert 0 < len(section.shown_ids) < len(lines)
        output = json.dumps({"additionalContext": block}, ensure_ascii=False)
        assert ("用户" in output) == (lines is chinese)  # written as is, not escaped


def test_a_complete_block_says_so_and_labels_each_memory_by_where_it_comes_from() -> None:
    user = Section("user", ["- The user prefers tea."], ["u1"], 1)
    project = Section("project", ["- The project uses PostgreSQL."], ["p1"], 1)
    block = compose([user, project], 10_000)
    assert '<memories source="from every project">' in block
    assert '<memories source="from this project">' in block
    assert block.splitlines()[-1] == "All the memories worth showing are above (2)."
    top = Section("user", ["- The user prefers tea."], ["u1"], 30)  # 30 worth it, 1 listed
    assert compose([top], 10_000).splitlines()[-1].startswith("The strongest 1 of 30 memories")
    assert compose([Section("file", [], [], 0)], 10_000) == ""


def test_the_prompt_block_holds_at_most_1500_characters() -> None:
    lines = [f"- memory {i} " + "x" * 390 for i in range(5)]
    block, kept = prompt_block(lines, 1_500)
    assert encoded_length(block) <= 1_500 and 0 < kept < 5


def test_per_prompt_recall_finds_archived_memories_the_session_was_not_shown(
    tmp_path: Path,
) -> None:
    path = tmp_path / "MEMORY.md"
    strong = make_entry("s00001", "The user prefers pytest over unittest.", 0.9, at=NOW)
    archived = make_entry("a00001", "The user's staging server is called atlas-7.", 0.1, at=NOW)
    _save(path, [strong, archived])
    places = [Place("file", path)]
    start = service.session_start(places, "s1")
    assert "pytest" in start and "atlas-7" not in start
    found = service.prompt_recall(places, "s1", "What is the staging server called?")
    assert "atlas-7" in found and encoded_length(found) <= service.PROMPT_MAX_CHARS
    # Shown once: not again in this session, nor what the session start showed.
    assert service.prompt_recall(places, "s1", "the staging server, again?") == ""
    assert service.prompt_recall(places, "s1", "pytest or unittest?") == ""
    assert service.prompt_recall(places, "s2", "pytest or unittest?") != ""  # another session
    assert service.prompt_recall(places, "s2", "sailing boats in the harbour") == ""


def test_per_prompt_recall_gives_at_most_five_memories(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    entries = [
        make_entry(f"k{i:05d}", f"The user keeps kayak number {i} at the lake.", 0.1, at=NOW)
        for i in range(12)
    ]
    _save(path, entries)
    block = service.prompt_recall([Place("file", path)], "s1", "which kayak is at the lake?")
    assert 0 < block.count("\n- ") <= 5


def test_the_user_memory_and_a_projects_are_read_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "data" / "MEMORY.md"
    user.parent.mkdir()
    monkeypatch.setenv("EVERBOT_MEMORY_USER_FILE", str(user))
    project = tmp_path / "project"
    project.mkdir()
    assert memory_places(str(project)) == [Place("user", user)]  # no project memory yet
    Memory(user).remember("The user prefers tabs over spaces.", category="preference")
    Memory(project / "MEMORY.md").remember("The project deploys with Ansible.", category="workflow")
    places = memory_places(str(project))
    assert [p.scope for p in places] == ["user", "project"]
    block = service.session_start(places, "s1")
    user_part, project_part = block.split('<memories source="from this project">')
    assert "tabs over spaces" in user_part and "Ansible" in project_part
    # The side files of both are in their hidden folders; the project root gets MEMORY.md.
    assert sorted(p.name for p in project.iterdir()) == [".MEMORY.md.everbot", "MEMORY.md"]


def test_a_session_is_split_between_the_users_memory_and_the_projects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "data" / "MEMORY.md"
    monkeypatch.setenv("EVERBOT_MEMORY_USER_FILE", str(user))
    project = tmp_path / "project"
    project.mkdir()
    Memory(project / "MEMORY.md").init()
    transcript = tmp_path / "session.txt"
    transcript.write_text(
        "User: I prefer pytest over unittest.\n"
        "User: We decided to use PostgreSQL instead of MongoDB for this service.\n",
        encoding="utf-8",
    )
    places = memory_places(str(project))
    service.queue_session(places, "s1", str(transcript), "SessionEnd")
    report = Memory(user, "rules").jobs.process()
    assert report is not None and report.done == 1 and report.failed == 0
    mine = {e.content for e in MemoryStore(user).load()}
    theirs = {e.content for e in MemoryStore(project / "MEMORY.md").load()}
    assert any("pytest" in c for c in mine) and not any("pytest" in c for c in theirs)
    assert any("PostgreSQL" in c for c in theirs) and not any("PostgreSQL" in c for c in mine)
    # The session is recorded in each memory's ledger: closing it again adds nothing.
    service.queue_session(places, "s1", str(transcript), "SessionEnd")
    Memory(user, "rules").jobs.process()
    assert len(MemoryStore(user).load()) == len(mine)
    assert len(MemoryStore(project / "MEMORY.md").load()) == len(theirs)


def test_the_last_hook_run_is_kept_for_doctor(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    service.record_run([Place("file", path)], "SessionStart", 0.0123)
    record = json.loads(SideFiles.of(path).last_hook.read_text(encoding="utf-8"))
    assert record["event"] == "SessionStart" and record["seconds"] == 0.0123 and record["ok"]


def test_a_projects_other_document_called_memory_md_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVERBOT_MEMORY_USER_FILE", str(tmp_path / "data" / "MEMORY.md"))
    project = tmp_path / "project"
    project.mkdir()
    other = project / "MEMORY.md"
    other.write_text("# Memory allocator notes\n\nThe arena grows by doubling.\n")
    assert [p.scope for p in memory_places(str(project))] == ["user"]
    quoting = "# Design\n\nA memory file:\n\n# Agent Memory\n\n## Active Memories\n"
    other.write_text(quoting)  # quotes the format further down: still not one
    assert [p.scope for p in memory_places(str(project))] == ["user"]
    other.write_text("")  # an empty one is a memory to start
    assert [p.scope for p in memory_places(str(project))] == ["user", "project"]


def test_per_prompt_recall_needs_more_than_one_common_word(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    _save(
        path,
        [
            make_entry("u00001", "The project uses uv to manage dependencies.", 0.3, at=NOW),
            make_entry("u00002", "The user's staging server is called atlas-7.", 0.1, at=NOW),
        ],
    )
    places = [Place("file", path)]
    assert service.prompt_recall(places, "s1", "which test framework should I use here?") == ""
    assert "uv" in service.prompt_recall(places, "s1", "how do we manage dependencies?")


def test_a_session_start_asks_for_a_sweep_at_most_every_ten_minutes(tmp_path: Path) -> None:
    places = [Place("file", tmp_path / "MEMORY.md")]
    now = NOW.timestamp()
    assert service.sweep_due(places, now)
    assert not service.sweep_due(places, now + service.SWEEP_EVERY_SECONDS - 1)
    assert service.sweep_due(places, now + service.SWEEP_EVERY_SECONDS + 1)


def _routed(tmp_path: Path) -> tuple[Memory, Memory]:
    """The user's memory with a project's beside it, as a SessionEnd job opens them."""
    user = Memory(tmp_path / "data" / "MEMORY.md", "rules")
    project = Memory(tmp_path / "project" / "MEMORY.md", "rules")
    user.init()
    project.init()
    user.others = [project]
    return user, project


def _session(tmp_path: Path, *lines: str) -> Path:
    transcript = tmp_path / "session.txt"
    transcript.write_text("".join(f"User: {line}\n" for line in lines), encoding="utf-8")
    return transcript


_PREFERS = "I prefer pytest over unittest."
_DECIDED = "We decided to use PostgreSQL instead of MongoDB for this service."


def _refuse(*args: object, **kwargs: object) -> None:
    raise OSError("read-only file system")


def _hits(memory: Memory) -> dict[str, int]:
    return {e.content: e.activation_count for e in memory.store.load()}


def test_a_routed_session_whose_project_save_failed_is_merged_once_into_each_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user, project = _routed(tmp_path)
    transcript = _session(tmp_path, _PREFERS, _DECIDED)

    with monkeypatch.context() as patched:
        patched.setattr(project, "merge_candidates", _refuse)
        for _ in range(3):
            with pytest.raises(OSError):
                user.close_transcript(transcript, session_id="s1")
    assert project.store.load() == []
    assert list(_hits(user).values()) == [1]  # the user's part, merged once
    user.close_transcript(transcript, session_id="s1")
    assert list(_hits(user).values()) == [1]
    assert list(_hits(project).values()) == [1]
    assert user.close_transcript(transcript, session_id="s1").stats["messages"] == 0


def test_a_routed_session_whose_user_save_failed_changes_neither_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user, project = _routed(tmp_path)
    transcript = _session(tmp_path, _PREFERS, _DECIDED)

    with monkeypatch.context() as patched:
        patched.setattr(user, "merge_candidates", _refuse)
        with pytest.raises(OSError):
            user.close_transcript(transcript, session_id="s1")
    assert user.store.load() == [] and project.store.load() == []
    user.close_transcript(transcript, session_id="s1")
    assert list(_hits(user).values()) == [1] and list(_hits(project).values()) == [1]


def test_deleting_the_users_memory_refills_it_and_leaves_the_projects_alone(
    tmp_path: Path,
) -> None:
    user, project = _routed(tmp_path)
    transcript = _session(tmp_path, _PREFERS, _DECIDED)
    user.close_transcript(transcript, session_id="s1")
    notes = sorted((tmp_path / "project" / "memory").iterdir())
    written = [n.read_bytes() for n in notes]
    user.path.unlink()  # start the user's own memory over
    user.close_transcript(transcript, session_id="s1")
    assert list(_hits(user).values()) == [1]
    assert list(_hits(project).values()) == [1]
    assert [n.read_bytes() for n in notes] == written  # the session's note is not written again
    # The session goes on: only the new message reaches the project, the user's memory gets
    # its part of the whole session once.
    user.path.unlink()
    more = _session(
        tmp_path, _PREFERS, _DECIDED, "We decided to use Redis for caching in this service."
    )
    report = user.close_transcript(more, session_id="s1")
    assert report.stats["messages"] == 3
    assert list(_hits(user).values()) == [1]
    theirs = _hits(project)
    assert len(theirs) == 2 and set(theirs.values()) == {1}


def test_a_session_split_before_each_memory_kept_its_record_is_not_merged_again(
    tmp_path: Path,
) -> None:
    user, project = _routed(tmp_path)
    transcript = _session(tmp_path, _PREFERS, _DECIDED)
    user.close_transcript(transcript, session_id="s1")
    # As an earlier version left it: the session recorded in the user's ledger alone.
    project.ledger.clear()
    records = json.loads(user.ledger.path.read_text(encoding="utf-8"))
    records["s1"].pop("split")
    user.ledger.path.write_text(json.dumps(records), encoding="utf-8")
    assert user.close_transcript(transcript, session_id="s1").stats["messages"] == 0
    assert list(_hits(project).values()) == [1]
    # The user's own memory started over: still nothing for the project's.
    user.path.unlink()
    user.close_transcript(transcript, session_id="s1")
    assert list(_hits(user).values()) == [1] and list(_hits(project).values()) == [1]


def test_every_old_record_still_stands_for_the_project_after_the_user_starts_over(
    tmp_path: Path,
) -> None:
    """Two sessions recorded in the user's ledger alone (as an earlier version left them);
    the user deletes their own memory; closing one session again cleared the user's ledger,
    and the other session was then merged into the project a second time."""
    user, project = _routed(tmp_path)
    first = _session(tmp_path, _PREFERS, _DECIDED)
    second = tmp_path / "second.txt"
    second.write_text(
        "User: I always use vim as my editor.\nAssistant: Noted.\n"
        "User: We decided to use Redis for caching in this service.\nAssistant: Noted.\n",
        encoding="utf-8",
    )
    user.close_transcript(first, session_id="s1")
    user.close_transcript(second, session_id="s2")
    project.ledger.clear()
    records = json.loads(user.ledger.path.read_text(encoding="utf-8"))
    for record in records.values():
        record.pop("split", None)
    user.ledger.path.write_text(json.dumps(records), encoding="utf-8")
    before = _hits(project)
    user.path.unlink()
    user.close_transcript(first, session_id="s1")
    user.close_transcript(second, session_id="s2")
    assert _hits(project) == before
    user.close_transcript(second, session_id="s2")  # and again: nothing new anywhere
    assert _hits(project) == before


def _damage(data: bytes, how: str) -> bytes:
    if how == "truncated":
        return data[: len(data) // 2]
    if how == "corrupted":
        middle = len(data) // 2
        return data[:middle] + bytes([data[middle] ^ 0x5A]) + data[middle + 1 :]
    return data + b"\x00garbage\xff{not json]" * 5  # appended to


def _answers(path: Path, now: float) -> tuple[object, ...]:
    """What a load, recall and each hook give for the file at ``path``."""
    import shutil

    from everbot_memory.document import parse

    places = [Place("file", path)]
    hits = tuple(
        tuple(hit.entry.id for hit in RecallIndex.for_file(path).search(q, k=5)) for q in QUERIES
    )
    answers = (
        MemoryStore(path).load(),
        parse(path.read_text(encoding="utf-8")).entries,
        hits,
        service.session_start(places, "start", now),
        tuple(service.prompt_recall(places, f"p{n}", q, now) for n, q in enumerate(QUERIES)),
    )
    shutil.rmtree(SideFiles.of(path).shown, ignore_errors=True)  # sessions shown: none
    return answers


@pytest.mark.parametrize("how", ["truncated", "corrupted", "appended"])
@pytest.mark.parametrize(
    "name", ["parsed", "hook-search.json", "hook-prompt.json", "hook-lines", "versions", "index"]
)
def test_a_damaged_side_file_never_changes_what_is_read(
    tmp_path: Path, name: str, how: str
) -> None:
    import shutil

    path = tmp_path / "kept" / "MEMORY.md"
    path.parent.mkdir()
    _save(path, _entries(30))
    for step in range(4):  # saves that append to the record and splice the hooks' files
        store = MemoryStore(path)
        entries = store.load()
        changed = entries[step].replace(content=f"{entries[step].content} Noted again {step}.")
        store.save([*entries[:step], changed, *entries[step + 1 :]])
    now = (NOW + timedelta(hours=1)).timestamp()
    RecallIndex.for_file(path).search("warm the index", k=1)  # its cache, to damage too
    # What the file alone gives: a copy of it with no side files at all.
    alone = tmp_path / "alone" / "MEMORY.md"
    alone.parent.mkdir()
    shutil.copyfile(path, alone)
    expected = _answers(alone, now)
    assert expected[0] == expected[1]
    folder = SideFiles.of(path).folder
    target = folder / name
    if name == "versions":
        target = max(target.glob("*.gz"))  # the engine's newest version
    assert target.is_file(), sorted(p.name for p in folder.iterdir())
    target.write_bytes(_damage(target.read_bytes(), how))
    assert _answers(path, now) == expected
    # And a save after it leaves files that read as the file does.
    store = MemoryStore(path)
    entries = store.load()
    store.save([*entries, make_entry("z9999", "The user keeps bees on the roof.", 0.7, at=NOW)])
    again = _answers(path, now)
    assert again[0] == again[1]
    shutil.copyfile(path, alone)
    shutil.rmtree(SideFiles.of(alone).folder)
    assert again == _answers(alone, now)
