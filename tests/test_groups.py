"""Groups: kept in the heading where a person sets them, assigned by the LLM backends and the
rules, and honoured by every filter (CLI, Python, MCP's calls, the hooks' fast path)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import make_entry
from fake_anthropic import fake_anthropic, message
from freezegun import freeze_time
from typer.testing import CliRunner

from everbot_memory import Memory
from everbot_memory.core.candidate import Candidate
from everbot_memory.core.entry import check_group
from everbot_memory.core.groups import guess_group, matches, parse_filter
from everbot_memory.core.merge import MemoryMerger
from everbot_memory.document.parse import parse
from everbot_memory.document.render import render
from everbot_memory.errors import EverbotMemoryError
from everbot_memory.facade import hooks
from everbot_memory.facade.locations import Place
from everbot_memory.faces.cli import app
from everbot_memory.storage.store import MemoryStore

anthropic = pytest.importorskip("anthropic")


def run(*args: str) -> object:
    return CliRunner().invoke(app, list(args))


@pytest.mark.parametrize(
    ("text", "group"),
    [
        ("The user deploys the billing service on Fridays.", "work"),
        ("The user's team has standup at 9:30.", "work"),
        ("用户每周一上午开周会", "work"),
        ("The user walks the dog before breakfast.", "life"),
        ("用户周末喜欢爬山", "life"),
        ("The user prefers tabs.", None),
        ("The user likes short answers.", None),
    ],
)
def test_the_rules_guess_a_group_only_when_the_words_say_so(text: str, group: str | None) -> None:
    assert guess_group(text) == group


def test_a_group_round_trips_and_a_hand_written_one_is_read() -> None:
    entry = make_entry(group="work")
    doc = parse(render(parse("# Agent Memory\n").__class__(entries=[entry])))
    assert doc.entries == [entry] and not doc.problems
    text = render(doc)
    assert "### [a1b2c3] preference | 0.60 | 2026-03-01 | 1 | work\n" in text
    edited = parse(text.replace("| 1 | work", "| 1 | Family"))
    assert edited.entries[0].group == "family"
    assert [p.message for p in edited.problems] == ["group 'Family' read as 'family'"]
    added = parse(text.replace("| 1 | work", "| 1 | 家庭"))
    assert added.entries[0].group == "家庭" and not added.problems


def test_a_group_that_is_no_word_is_repaired_and_the_memory_kept() -> None:
    text = render(parse("").__class__(entries=[make_entry(group="work")]))
    spaced = parse(text.replace("| 1 | work", "| 1 | Work Stuff"))
    assert spaced.entries[0].group == "work-stuff"
    assert [p.message for p in spaced.problems] == ["group 'Work Stuff' read as 'work-stuff'"]
    symbols = parse(text.replace("| 1 | work", "| 1 | @@@"))
    assert symbols.entries[0].group is None and not symbols.notes
    assert "dropped" in symbols.problems[0].message
    none = parse(text.replace("| 1 | work", "| 1 | none"))
    assert none.entries[0].group is None and "means no group" in none.problems[0].message
    # More fields than a heading has: kept verbatim as a note, as before.
    extra = parse(text.replace("| 1 | work", "| 1 | life | extra"))
    assert extra.entries == [] and "life | extra" in render(extra)


def test_check_group_and_filters() -> None:
    assert check_group(" Work ") == "work" and check_group("") is None
    assert check_group("none") is None and check_group("-") is None
    with pytest.raises(ValueError, match="one word"):
        check_group("a|b")
    wanted = parse_filter("work, none")
    assert wanted == frozenset({"work", "none"})
    assert matches("work", wanted) and matches(None, wanted) and not matches("life", wanted)
    assert matches("life", None) and parse_filter(" , ") is None


def test_a_new_memory_takes_the_candidates_group_else_the_replaced_ones_else_the_rules() -> None:
    old = make_entry("aaaaaa", "The user lives in Lyon.", 0.8, category="fact", group="home")
    result = MemoryMerger().merge(
        [old],
        [
            Candidate(content="The user lives in Paris.", category="fact", contradicts=("aaaaaa",)),
            Candidate(content="The user plays tennis on Sundays.", group="sport"),
            Candidate(content="The user reviews pull requests before the standup."),
        ],
        "s1",
    )
    by_text = {e.content: e.group for e in result.entries}
    assert by_text["The user lives in Paris."] == "home"
    assert by_text["The user plays tennis on Sundays."] == "sport"
    assert by_text["The user reviews pull requests before the standup."] == "work"


def test_the_llm_backend_names_the_group(tmp_path: Path) -> None:
    from everbot_memory.extract.claude import AnthropicExtractor

    memory = tmp_path / "MEMORY.md"
    said = {"content": "The user is training for a marathon.", "category": "fact"}
    with fake_anthropic() as fake:
        fake.replies = [
            message(json.dumps({"memories": [{**said, "importance": "high", "group": "life"}]}))
        ]
        client = anthropic.Anthropic(api_key="k", base_url=fake.url, max_retries=0)
        extractor = AnthropicExtractor(client=client, model="claude-test")
        Memory(memory, extractor).process_session_end_sync(
            [{"role": "user", "content": "I'm training for a marathon."}], "s1"
        )
    [entry] = Memory(memory).entries()
    assert entry.group == "life"
    schema = json.dumps(fake.requests[0]["output_config"])
    assert '"group"' in schema and '"session_note"' in schema


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    path = tmp_path / "MEMORY.md"
    with freeze_time("2026-03-01"):
        MemoryStore(path).save(
            [
                make_entry("aaaaaa", "The user deploys on Fridays.", 0.9, group="work"),
                make_entry("bbbbbb", "The user walks the dog at seven.", 0.8, group="life"),
                make_entry("cccccc", "The user likes short answers.", 0.7),
            ]
        )
    return path


def test_cli_filters_by_group(mixed: Path) -> None:
    with freeze_time("2026-03-02"):
        listed = run("list", "--group", "work", "--file", str(mixed))
        both = run("list", "-g", "work,none", "--json", "--file", str(mixed))
        found = run("recall", "dog", "--group", "work", "--file", str(mixed))
        block = run("prompt", "--group", "life", "--file", str(mixed))
    assert listed.output.count("\n") == 1 and "@work The user deploys" in listed.output
    assert [e["id"] for e in json.loads(both.output)] == ["aaaaaa", "cccccc"]
    assert "no memory matches" in found.output
    assert "walks the dog" in block.output and "deploys" not in block.output


def test_remember_and_update_set_the_group(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    result = run("remember", "The user bakes bread", "-g", "Kitchen", "--file", str(path))
    assert result.exit_code == 0, result.output
    memory = Memory(path)
    [entry] = memory.entries()
    assert entry.group == "kitchen"
    assert memory.update(entry.id, group="none").group is None
    with pytest.raises(EverbotMemoryError, match="one word"):
        memory.update(entry.id, group="two words")
    bad = run("remember", "x y z", "-g", "a b", "--file", str(path))
    assert bad.exit_code == 2 and "one word" in bad.output and "Traceback" not in bad.output
    with pytest.raises(EverbotMemoryError, match="nothing remembered: group 'a b'"):
        memory.remember("x y z", group="a b")


def test_the_hooks_keep_to_the_projects_group(mixed: Path, tmp_path: Path) -> None:
    places = [Place("file", mixed)]
    project = tmp_path / "project"
    project.mkdir()
    (project / "everbot-memory.toml").write_text('group = "work,none"\n', encoding="utf-8")
    groups = hooks.group_filter(project)
    assert groups == frozenset({"work", "none"})
    now = 1_772_409_600.0  # 2026-03-02
    block = hooks.session_start(places, "s1", now, groups=groups)
    assert "deploys" in block and "short answers" in block and "dog" not in block
    assert hooks.prompt_recall(places, "s2", "walk the dog", now, groups=groups) == ""
    assert "dog" in hooks.prompt_recall(places, "s3", "walk the dog", now)
    everything = hooks.session_start(places, "s4", now)
    assert "dog" in everything


def test_a_broken_project_config_is_said_not_crashed(tmp_path: Path) -> None:
    (tmp_path / "everbot-memory.toml").write_text("group = [\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not readable TOML"):
        hooks.group_filter(tmp_path)


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('group = "bad group"\n', "is not a group"),
        ("group = 123\n", "must be a non-empty string"),
        (b"\xff\xfe\x00bad", "not UTF-8"),
    ],
)
def test_a_bad_group_setting_is_one_line_everywhere(
    mixed: Path, toml: str | bytes, message: str
) -> None:
    config = mixed.parent / "everbot-memory.toml"
    if isinstance(toml, bytes):
        config.write_bytes(toml)
    else:
        config.write_text(toml, encoding="utf-8")
    for command in (["doctor"], ["maintain"], ["consolidate"]):
        result = run(*command, "--file", str(mixed))
        assert result.exit_code == 1, (command, result.output)
        assert message in result.output and "Traceback" not in result.output
    if not isinstance(toml, bytes):
        with pytest.raises(ValueError):
            hooks.group_filter(mixed.parent)


def test_doctor_says_when_the_group_filter_matches_no_memory(mixed: Path) -> None:
    (mixed.parent / "everbot-memory.toml").write_text('group = "wrok"\n', encoding="utf-8")
    result = run("doctor", "--file", str(mixed))
    assert result.exit_code == 1 and "matches none of the memories" in result.output
    (mixed.parent / "everbot-memory.toml").write_text('group = "work"\n', encoding="utf-8")
    fine = run("doctor", "--file", str(mixed))
    assert "the hooks here show only 'work'" in fine.output
