"""The web page over HTTP: every route, and every lock (Host, token, CSRF, origin)."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest
from freezegun import freeze_time

pytest.importorskip("starlette", reason="the ui extra is not installed")

from starlette.testclient import TestClient
from typer.testing import CliRunner

from everbot_memory import Memory
from everbot_memory.faces.cli import app as cli
from everbot_memory.faces.web import Settings, create_app
from everbot_memory.faces.web.guard import cookie_name
from everbot_memory.storage.queue import Job, JobQueue

PORT = 8765
COOKIE = cookie_name(PORT)


@pytest.fixture
def memory(tmp_path: Path) -> Memory:
    memory = Memory(tmp_path / "MEMORY.md")
    memory.init()
    memory.remember("The user prefers pytest over unittest.", "preference", "high")
    memory.remember("The user deploys on Fridays after lunch.", "workflow", "medium")
    memory.remember("The user once tried Vue for a side project.", "experience", "low")
    return memory


@pytest.fixture
def settings(memory: Memory) -> Settings:
    return Settings(memory.path, PORT, token="t" * 43, csrf="c" * 43)


def _client(settings: Settings, host: str = "127.0.0.1") -> TestClient:
    return TestClient(
        create_app(settings), base_url=f"http://{host}:{settings.port}", follow_redirects=False
    )


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """A browser that opened the printed address: it holds the token's cookie."""
    with _client(settings) as browser:
        first = browser.get(f"/?token={settings.token}")
        assert first.status_code == 303 and first.headers["location"] == "/"
        yield browser


def _id(memory: Memory, text: str) -> str:
    return next(e.id for e in memory.entries() if text in e.content)


def _version(page: str) -> str:
    found = re.search(r'name="version" value="([0-9a-f]+)"', page)
    assert found
    return found.group(1)


# -- the locks


def test_the_printed_address_sets_an_http_only_strict_cookie_and_drops_the_token(
    settings: Settings,
) -> None:
    with _client(settings) as browser:
        answer = browser.get(f"/?token={settings.token}&section=active")
        assert answer.status_code == 303
        assert answer.headers["location"] == "/?section=active"
        cookie = answer.headers["set-cookie"]
        assert f"{COOKIE}={settings.token}" in cookie
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
        assert browser.get("/?section=active").status_code == 200


def test_no_token_is_refused(settings: Settings) -> None:
    with _client(settings) as browser:
        for path in ("/", "/health", "/memories/x", "/static/style.css"):
            answer = browser.get(path)
            assert answer.status_code == 403, path
            assert "no token" in answer.text
        assert browser.post("/memories", data={"content": "x"}).status_code == 403


def test_a_wrong_token_is_refused_in_the_address_and_in_the_cookie(settings: Settings) -> None:
    with _client(settings) as browser:
        answer = browser.get("/?token=guessed")
        assert answer.status_code == 403 and "wrong token" in answer.text
        assert "set-cookie" not in answer.headers
        browser.cookies.set(COOKIE, "guessed")
        assert browser.get("/").status_code == 403


@pytest.mark.parametrize(
    "host", ["evil.example:8765", "127.0.0.1:9999", "localhost", "127.0.0.1", "[::1]:8765"]
)
def test_a_wrong_host_header_is_refused_even_with_the_token(settings: Settings, host: str) -> None:
    with _client(settings) as browser:
        answer = browser.get(f"/?token={settings.token}", headers={"host": host})
        assert answer.status_code == 403 and "Host" in answer.text
        browser.cookies.set(COOKIE, settings.token)
        assert browser.get("/", headers={"host": host}).status_code == 403


def test_localhost_with_the_port_is_let_in(settings: Settings) -> None:
    with _client(settings, "localhost") as browser:
        assert browser.get(f"/?token={settings.token}").status_code == 303
        assert browser.get("/").status_code == 200


def test_other_methods_are_refused(client: TestClient) -> None:
    assert client.put("/memories").status_code == 405
    assert client.delete("/").status_code == 405


def test_every_answer_carries_the_safe_headers(client: TestClient, settings: Settings) -> None:
    for answer in (client.get("/"), client.get("/static/style.css"), client.get("/nope")):
        policy = answer.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
        assert answer.headers["x-frame-options"] == "DENY"
        assert answer.headers["referrer-policy"] == "same-origin"
        assert answer.headers["cache-control"] == "no-store"


def _writes(memory: Memory) -> list[tuple[str, dict[str, str]]]:
    entry_id = _id(memory, "pytest")
    return [
        ("/memories", {"content": "The user likes tea.", "category": "preference"}),
        (f"/memories/{entry_id}", {"content": "changed", "category": "fact", "score": "0.5"}),
        (f"/memories/{entry_id}/forget", {}),
    ]


@pytest.mark.parametrize("csrf", [None, "", "wrong"])
def test_every_write_needs_the_csrf_token(
    client: TestClient, memory: Memory, csrf: str | None
) -> None:
    before = memory.path.read_bytes()
    page = client.get(f"/memories/{_id(memory, 'pytest')}").text
    for path, form in _writes(memory):
        data = {**form, "version": _version(page)}
        if csrf is not None:
            data["csrf"] = csrf
        answer = client.post(path, data=data)
        assert answer.status_code == 403, path
        assert "CSRF" in answer.text
    assert memory.path.read_bytes() == before


def test_a_write_from_another_origin_is_refused(
    client: TestClient, memory: Memory, settings: Settings
) -> None:
    before = memory.path.read_bytes()
    for path, form in _writes(memory):
        answer = client.post(
            path, data={**form, "csrf": settings.csrf}, headers={"origin": "http://evil.example"}
        )
        assert answer.status_code == 403 and "origin" in answer.text, path
    assert memory.path.read_bytes() == before


def test_the_server_binds_only_to_loopback() -> None:
    from everbot_memory.faces.web.server import HOST, bind

    sock = bind(0)
    try:
        assert HOST == "127.0.0.1"
        assert sock.getsockname()[0] == "127.0.0.1"
    finally:
        sock.close()


# -- reading


def test_the_list_shows_every_memory_with_its_fields(client: TestClient, memory: Memory) -> None:
    page = client.get("/").text
    for entry in memory.entries():
        assert f'data-id="{entry.id}"' in page
        assert entry.category in page
    assert "<meter" in page and "3 shown of 3" in page
    assert 'name="csrf"' in page  # the add form
    assert "http://" not in page.replace(f"http://127.0.0.1:{PORT}", "")  # nothing from outside


def test_the_list_filters_by_section_category_and_text(client: TestClient, memory: Memory) -> None:
    vue = _id(memory, "Vue")  # low importance: 0.4, still Active
    memory.update(vue, score=0.1)  # Archived now
    active = client.get("/?section=active").text
    assert f'data-id="{vue}"' not in active and "2 shown of 3" in active
    archived = client.get("/?section=archived").text
    assert f'data-id="{vue}"' in archived and "1 shown of 3" in archived
    workflow = client.get("/?category=workflow").text
    assert f'data-id="{_id(memory, "Fridays")}"' in workflow and "1 shown" in workflow
    text = client.get("/?text=PYTEST  over").text
    assert f'data-id="{_id(memory, "pytest")}"' in text and "1 shown" in text


def test_the_list_sorts(client: TestClient, memory: Memory) -> None:
    friday = _id(memory, "Fridays")
    memory.mark_used([friday, friday])
    page = client.get("/?sort=hits").text
    order = re.findall(r'data-id="([^"]+)"', page)
    assert order[0] == friday
    for sort in ("score", "activated", "created", "expires"):
        assert client.get(f"/?sort={sort}").status_code == 200
    assert client.get("/?sort=nonsense").status_code == 400


def test_the_search_is_recall(client: TestClient, memory: Memory) -> None:
    page = client.get("/?q=when does the user deploy").text
    found = re.findall(r'data-id="([^"]+)"', page)
    assert found == [hit.entry.id for hit in memory.recall("when does the user deploy", k=50)]
    assert found and "relevance" in page
    assert "No memory matches" in client.get("/?q=zebra quantum").text


def test_an_unknown_category_is_a_clear_error(client: TestClient) -> None:
    answer = client.get("/?category=hobby")
    assert answer.status_code == 400 and "hobby" in answer.text


def test_a_memory_page_shows_content_chart_and_history(client: TestClient, memory: Memory) -> None:
    old = _id(memory, "pytest")
    new, _ = memory.remember("The user lives in Lyon.", "fact")
    newer, _ = memory.remember("The user lives in Paris.", "fact")  # retires Lyon
    page = client.get(f"/memories/{old}").text
    assert "The user prefers pytest over unittest." in page
    assert "<svg" in page and "<polyline" in page and "Active 0.2" in page
    lyon = client.get(f"/memories/{new.id}").text
    assert "replaced by" in lyon and f'href="/memories/{newer.id}"' in lyon
    paris = client.get(f"/memories/{newer.id}").text
    assert "replaced:" in paris and f'href="/memories/{new.id}"' in paris


def test_an_unknown_memory_is_404(client: TestClient) -> None:
    answer = client.get("/memories/nope")
    assert answer.status_code == 404 and "nope" in answer.text


def test_an_editors_change_shows_on_reload(client: TestClient, memory: Memory) -> None:
    text = memory.path.read_text(encoding="utf-8")
    memory.path.write_text(text.replace("after lunch", "before noon"), encoding="utf-8")
    assert "before noon" in client.get("/").text


def test_the_health_page_shows_problems_duplicates_and_failed_jobs(
    client: TestClient, memory: Memory
) -> None:
    text = memory.path.read_text(encoding="utf-8")
    text += "\n### [dup1] preference | 0.7 | 2026-03-01\nThe user prefers pytest over unittest!\n"
    memory.path.write_text(text, encoding="utf-8")
    queue = JobQueue(memory.path)
    job = Job(session_id="s-broken", transcript_path="gone.jsonl", event="SessionEnd")
    job.error = "the transcript is gone"
    queue.fail(queue.add(job))
    page = client.get("/health").text
    assert "dedupe" in page and "[dup1]" in page
    assert "line " in page  # doctor's problems with their lines
    assert "s-broken" in page and "the transcript is gone" in page
    assert len(memory.duplicate_groups()) == 1


def test_the_health_page_of_a_clean_file(client: TestClient) -> None:
    page = client.get("/health").text
    assert page.count("None.") == 3


def test_the_style_sheet_is_served_from_the_package(client: TestClient) -> None:
    answer = client.get("/static/style.css")
    assert answer.status_code == 200 and "text/css" in answer.headers["content-type"]


# -- writing


def test_add_remembers_and_shows_the_new_memory(
    client: TestClient, memory: Memory, settings: Settings
) -> None:
    form = {"content": "The user drinks green tea.", "category": "preference", "importance": "high"}
    answer = client.post("/memories", data={**form, "csrf": settings.csrf})
    assert answer.status_code == 303
    entry_id = _id(memory, "green tea")
    assert answer.headers["location"] == f"/memories/{entry_id}?saved=added"
    assert memory.get(entry_id).score == pytest.approx(0.8)
    assert "Added." in client.get(answer.headers["location"]).text


def test_add_refuses_an_empty_memory(client: TestClient, settings: Settings) -> None:
    answer = client.post("/memories", data={"content": " ", "csrf": settings.csrf})
    assert answer.status_code == 400 and "nothing remembered" in answer.text


def test_the_list_filters_by_group_and_shows_the_profile(
    client: TestClient, memory: Memory
) -> None:
    deploy, vue = _id(memory, "Fridays"), _id(memory, "Vue")
    memory.update(deploy, group="work")
    memory.update(vue, group="hobby")
    memory.update(_id(memory, "pytest"), group="none")
    page = client.get("/").text
    assert '<option value="hobby">' in page and '<option value="none">' in page
    assert '<td class="group">work</td>' in page
    # The profile, derived from the strongest preference, comes first.
    assert page.index('aria-label="profile"') < page.index('class="memories"')
    assert "Preferences: The user prefers pytest over unittest" in page
    work = client.get("/?group=work").text
    assert f'data-id="{deploy}"' in work and "1 shown of 3" in work
    none = client.get("/?group=none").text
    assert f'data-id="{_id(memory, "pytest")}"' in none and "1 shown of 3" in none


def test_add_and_edit_set_the_group(client: TestClient, memory: Memory, settings: Settings) -> None:
    added = client.post(
        "/memories",
        data={
            "csrf": settings.csrf,
            "content": "The user bakes sourdough on Sundays.",
            "category": "fact",
            "importance": "medium",
            "group": "Kitchen",
        },
    )
    assert added.status_code == 303
    entry_id = _id(memory, "sourdough")
    assert memory.get(entry_id).group == "kitchen"
    page = client.get(f"/memories/{entry_id}").text
    assert 'name="group" value="kitchen"' in page
    fields = {
        "csrf": settings.csrf,
        "version": _version(page),
        "content": "The user bakes sourdough on Sundays.",
        "category": "fact",
        "score": f"{memory.get(entry_id).score:.3f}",
        "group": "",
    }
    assert client.post(f"/memories/{entry_id}", data=fields).status_code == 303
    assert memory.get(entry_id).group is None
    bad = client.post(
        f"/memories/{entry_id}",
        data={
            **fields,
            "version": _version(client.get(f"/memories/{entry_id}").text),
            "group": "two words",
        },
    )
    assert bad.status_code == 400 and "one word" in bad.text


def test_edit_saves_content_category_and_score(
    client: TestClient, memory: Memory, settings: Settings
) -> None:
    entry_id = _id(memory, "pytest")
    version = _version(client.get(f"/memories/{entry_id}").text)
    answer = client.post(
        f"/memories/{entry_id}",
        data={
            "csrf": settings.csrf,
            "version": version,
            "content": "The user prefers pytest, always.",
            "category": "decision",
            "score": "0.333",
        },
    )
    assert answer.status_code == 303
    assert answer.headers["location"] == f"/memories/{entry_id}?saved=saved"
    entry = memory.get(entry_id)
    assert (entry.content, entry.category, entry.score) == (
        "The user prefers pytest, always.",
        "decision",
        0.333,
    )
    assert "The user prefers pytest, always." in memory.path.read_text(encoding="utf-8")


def test_an_unchanged_score_keeps_its_anchor(
    client: TestClient, memory: Memory, settings: Settings
) -> None:
    entry_id = _id(memory, "Fridays")
    before = memory.get(entry_id)
    page = client.get(f"/memories/{entry_id}").text
    shown = re.search(r'name="score"[^>]*value="([0-9.]+)"', page)
    assert shown
    client.post(
        f"/memories/{entry_id}",
        data={
            "csrf": settings.csrf,
            "version": _version(page),
            "content": "The user deploys on Fridays after lunch, mostly.",
            "category": before.category,
            "score": shown.group(1),
        },
    )
    after = memory.get(entry_id)
    assert after.content.endswith("mostly.")
    assert after.anchor == before.anchor


def test_an_edit_to_a_memory_changed_meanwhile_is_refused(
    client: TestClient, memory: Memory, settings: Settings
) -> None:
    entry_id = _id(memory, "pytest")
    version = _version(client.get(f"/memories/{entry_id}").text)
    memory.update(entry_id, content="Changed by a session meanwhile.")  # underneath the page
    answer = client.post(
        f"/memories/{entry_id}",
        data={
            "csrf": settings.csrf,
            "version": version,
            "content": "My edit.",
            "category": "preference",
            "score": "0.9",
        },
    )
    assert answer.status_code == 409
    assert "changed after this page was loaded" in answer.text
    assert "My edit." in answer.text  # what was sent, to copy
    assert "Changed by a session meanwhile." in answer.text  # what the file holds now
    assert memory.get(entry_id).content == "Changed by a session meanwhile."


def test_an_edit_with_a_bad_score_changes_nothing(
    client: TestClient, memory: Memory, settings: Settings
) -> None:
    entry_id = _id(memory, "pytest")
    version = _version(client.get(f"/memories/{entry_id}").text)
    before = memory.path.read_bytes()
    for score in ("lots", "1.5", "nan", "inf"):
        answer = client.post(
            f"/memories/{entry_id}",
            data={
                "csrf": settings.csrf,
                "version": version,
                "content": "x",
                "category": "fact",
                "score": score,
            },
        )
        assert answer.status_code == 400 and "nothing updated" in answer.text
    assert memory.path.read_bytes() == before


def test_forget_deletes_and_a_stale_forget_is_refused(
    client: TestClient, memory: Memory, settings: Settings
) -> None:
    vue = _id(memory, "Vue")
    version = _version(client.get(f"/memories/{vue}").text)
    answer = client.post(
        f"/memories/{vue}/forget", data={"csrf": settings.csrf, "version": version}
    )
    assert answer.status_code == 303 and answer.headers["location"] == f"/?forgot={vue}"
    assert vue not in {e.id for e in memory.entries()}
    assert f"Forgot [{vue}]" in client.get(answer.headers["location"]).text
    again = client.post(f"/memories/{vue}/forget", data={"csrf": settings.csrf, "version": version})
    assert again.status_code == 409 and "is no longer in the file" in again.text

    friday = _id(memory, "Fridays")
    stale = _version(client.get(f"/memories/{friday}").text)
    memory.mark_used([friday])
    refused = client.post(
        f"/memories/{friday}/forget", data={"csrf": settings.csrf, "version": stale}
    )
    assert refused.status_code == 409 and friday in {e.id for e in memory.entries()}


def test_a_memory_whose_score_a_person_typed_can_be_forgotten_later(
    client: TestClient, memory: Memory, settings: Settings
) -> None:
    """Its score and the time it was set from are worked out at each read: the page's version
    changed every second, and every save or forget of it was refused."""
    friday = _id(memory, "Fridays")
    text = memory.path.read_text(encoding="utf-8")
    heading = next(line for line in text.splitlines() if line.startswith(f"### [{friday}]"))
    typed = re.sub(r"\| 0\.\d+ \|", "| 0.77 |", heading, count=1)
    memory.path.write_text(text.replace(heading, typed), encoding="utf-8")
    with freeze_time(datetime.now(timezone.utc)) as clock:
        version = _version(client.get(f"/memories/{friday}").text)
        clock.tick(5)
        assert _version(client.get(f"/memories/{friday}").text) == version
        answer = client.post(
            f"/memories/{friday}/forget", data={"csrf": settings.csrf, "version": version}
        )
    assert answer.status_code == 303 and friday not in {e.id for e in memory.entries()}


# -- the command


def test_ui_without_the_extra_names_it_in_one_line(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As on a machine without the extra: the page and its stack were never imported.
    for name in [m for m in sys.modules if m.startswith(("everbot_memory.faces.web", "starlette"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "starlette", None)
    result = CliRunner().invoke(cli, ["ui", "--file", str(memory.path), "--no-browser"])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1
    assert "'starlette'" in lines[0] and "ui extra" in lines[0] and ".[ui]" in lines[0]


def test_ui_needs_a_memory_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["ui", "--file", str(tmp_path / "none.md"), "--no-browser"])
    assert result.exit_code == 1 and "everbot-memory init" in result.output


def test_ui_prints_the_address_and_serves_it(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    import everbot_memory.faces.web.server as server

    seen: dict[str, object] = {}

    def run(self: object, sockets: list[object]) -> None:  # instead of serving forever
        seen["sockets"] = sockets

    monkeypatch.setattr(server.uvicorn.Server, "run", run)
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", opened.append)
    result = CliRunner().invoke(cli, ["ui", "--file", str(memory.path), "--json"])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[\w-]{40,}", printed["url"])
    assert opened == [printed["url"]]
    assert seen["sockets"]
    result = CliRunner().invoke(cli, ["ui", "--file", str(memory.path), "--no-browser"])
    assert "serving" in result.output and opened == [printed["url"]]


def test_content_is_shown_as_text_not_markup(client: TestClient, memory: Memory) -> None:
    entry, _ = memory.remember('The user wrote <script>alert("x")</script> in a note.', "fact")
    for page in (client.get("/").text, client.get(f"/memories/{entry.id}").text):
        assert "<script>" not in page and "&lt;script&gt;" in page


def test_days_and_times_before_the_year_1000_keep_four_digits_of_year() -> None:
    from datetime import date, datetime, timezone

    from everbot_memory.faces.web.app import _day, _when

    at = datetime(5, 3, 1, 9, 30, tzinfo=timezone.utc)
    assert _day(at) == "0005-03-01" and _day(date(5, 3, 1)) == "0005-03-01"
    assert _when(at) == "0005-03-01 09:30" and _day(None) == _when(None) == ""
