"""The profile (seed 003, the user profile): who the user is at a glance, derived from the
strongest preference and fact memories, shown first at session start.

Each line is ``- Label: value``. The engine derives a value for each of :data:`LABELS` from
the Active memories scoring at least 0.5, strongest first ("The user's name is Lena" gives
``Name: Lena``, "用户住在柏林" gives ``Lives in: 柏林``), and marks a derived line with a
hidden comment naming its memories and a short hash of the line: ``- Name: Lena <!-- derived
[641ccd] 3fa9c2 -->``. A derived line is rebuilt at every save.

A person corrects a line by editing it (its hash no longer matches: from then on it is theirs),
pins it by removing the comment, adds a line of their own, or hides a label with ``-`` as its
value (``- Tools: -``). A person's line always wins over what is derived for its label, and is
kept as written.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from .entry import MemoryEntry
from .rules import PROMPT_MIN_SCORE
from .text import one_line

__all__ = [
    "LABELS",
    "MAX_SOURCES",
    "ProfileLine",
    "derive",
    "in_groups",
    "is_source",
    "label_of",
    "line_hash",
    "ordered",
    "profile_lines",
    "read_line",
    "render_line",
    "shown",
    "source_key",
    "sources_of",
]

LABELS = ("Name", "Role", "Works at", "Lives in", "Languages", "Tools", "Preferences")
#: The memories considered (the strongest first): enough for a profile, cheap on a large file.
MAX_SOURCES = 300
_VALUE_MAX = 80
_LIST_MAX = 5
_PREFERENCES = 3

_DERIVED_RE = re.compile(r"\s*<!--\s*derived\s*\[([^\]]*)\]\s*([0-9a-f]{6})\s*-->\s*$")
_LOOSE_MARK_RE = re.compile(r"\s*<!--\s*derived\b.*?-->\s*$")
_LINE_RE = re.compile(r"^\s*[-*]\s+([^:：]{1,40}?)\s*[:：]\s*(.*?)\s*$")


@dataclass(frozen=True)
class ProfileLine:
    """One line of the profile: its label, its value, and the memories it was derived from
    (empty for a person's line)."""

    label: str
    value: str
    sources: tuple[str, ...] = ()


def line_hash(label: str, value: str) -> str:
    """The short hash a derived line carries, of its visible text."""
    return hashlib.sha1(f"{label}: {value}".encode()).hexdigest()[:6]


def render_line(line: ProfileLine) -> str:
    """A derived line as written in the file."""
    ids = ", ".join(line.sources)
    return (
        f"- {line.label}: {line.value} <!-- derived [{ids}] {line_hash(line.label, line.value)} -->"
    )


def read_line(text: str) -> tuple[str, str, bool] | None:
    """``(label, value, derived)`` of a profile line (``derived``: written by the engine and
    untouched since), or None when it is not a ``- Label: value`` line. Of an item of
    several lines, its first line is read."""
    text = text.split("\n", 1)[0]
    loose = _LOOSE_MARK_RE.search(text)
    visible = text[: loose.start()] if loose else text
    match = _LINE_RE.match(visible)
    if match is None:
        return None
    label, value = match.group(1).strip(), match.group(2).strip()
    marker = _DERIVED_RE.search(text)
    derived = marker is not None and marker.group(2) == line_hash(label, value)
    return label, value, derived


def label_of(text: str) -> str | None:
    """The label a person's line sets (case-folded), or None when it sets none."""
    read = read_line(text)
    return None if read is None else read[0].casefold()


_Rule = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]

# A role names an occupation: one of its words ends like one ("engineer", "analyst",
# "nurse"), and it is not a diet or a habit ("vegetarian", "early riser").
_OCCUPATION = re.compile(
    r"(?:er|or|ist|ian|ant|ent|eer|ect|nurse|doctor|chef|lead|student|intern|founder|ceo|cto|"
    r"cfo|pm|analyst|scientist|teacher|lawyer|dev|sre|admin|clerk|pilot|artist|manager)$",
    re.I,
)
_NOT_ROLES = re.compile(
    r"\b(?:vegetarian|vegan|pescatarian|beginner|fan|lover|believer|riser|sleeper|owner|"
    r"runner|reader|drinker|smoker|member|user|customer|parent|mother|father)\b",
    re.I,
)


def _role(match: re.Match[str]) -> str:
    role = match.group(1)
    if _NOT_ROLES.search(role) or not any(_OCCUPATION.search(w) for w in role.split()):
        return ""
    return role


def _rules() -> dict[str, list[_Rule]]:
    def group(n: int) -> Callable[[re.Match[str]], str]:
        return lambda m: m.group(n)

    the_user = r"\b(?i:the user)"
    capitalized = r"[A-Z][\w&.'-]*"
    stop = r"(?=\s+(?:as|at|in|on|for|since|and|but|who|where|with)\b|[,.;:!?，。；、]|$)"
    i = r"\bI"  # said by the user themselves, as a memory typed by hand may be
    who = r"(?:用户|我)"
    later = r"[^。；;]{0,16}?"  # further on in the same sentence ("我叫王芳，是一名护士")
    name = r"([A-Z][\w'-]*(?: [A-Z][\w'-]*){0,2})"
    rules: dict[str, list[tuple[str, Callable[[re.Match[str]], str]]]] = {
        "Name": [
            (rf"{the_user}'?s (?:first |full )?name is {name}", group(1)),
            (rf"{the_user} (?:is called|goes by) {name}", group(1)),
            (rf"\b(?i:my) (?:first |full )?name is {name}", group(1)),
            (
                rf"{i}(?:'m| am) called {name}|\b(?i:call me) {name}",
                lambda m: m.group(1) or m.group(2),
            ),
            (
                rf"{who}(?:叫|名叫|的名字(?:是|叫))([\u4e00-\u9fffA-Za-z]{{1,12}}?)(?=[，。,.;；]|$)",
                group(1),
            ),
        ],
        "Role": [
            (rf"{the_user} (?:is|works as) (?:an? )([a-z][\w -]{{2,50}}?){stop}", _role),
            (rf"{i}(?:'m| am| work as) (?:an? )([a-z][\w -]{{2,50}}?){stop}", _role),
            (
                rf"(?:{the_user} works|{i} work) (?:at|for) [^,.;]+? as (?:an? )?"
                rf"([a-z][\w -]{{2,50}}?){stop}",
                _role,
            ),
            (
                rf"{who}{later}(?:是(?:一名|一个|一位|个|名)|的职业是)"
                r"([\u4e00-\u9fff]{2,12}?)(?=[，。,.;；]|$)",
                group(1),
            ),
        ],
        "Works at": [
            (
                rf"(?:{the_user} works|{i} work) (?:at|for) "
                rf"({capitalized}(?: {capitalized}){{0,3}}){stop}",
                group(1),
            ),
            (rf"{who}{later}在([\u4e00-\u9fffA-Za-z]{{2,16}}?)(?:工作|上班|任职)", group(1)),
        ],
        "Lives in": [
            (
                rf"(?:{the_user} (?:lives|is based|lives now)|{i} (?:live|am based|'m based)) in "
                rf"({capitalized}(?: {capitalized}){{0,2}}){stop}",
                group(1),
            ),
            (
                rf"{who}{later}(?:住在|现在住在|定居在|生活在)"
                r"([\u4e00-\u9fffA-Za-z]{2,10}?)(?=[，。,.;；]|$)",
                group(1),
            ),
        ],
        "Languages": [
            (
                rf"(?:{the_user} speaks|{i} speak) ([A-Z][a-z]+(?:(?:,| and| ,) [A-Z][a-z]+)*)",
                group(1),
            ),
            (
                rf"{who}{later}(?:会说|会讲|讲|说)"
                r"([\u4e00-\u9fff]{1,6}?[语话文](?:(?:和|、|跟|与)[\u4e00-\u9fff]{1,6}?[语话文])*)",
                group(1),
            ),
        ],
        "Tools": [
            (
                rf"(?:{the_user} (?:uses|prefers|works with|codes in|writes)|"
                rf"{i} (?:use|prefer|work with|code in|write)) "
                r"([A-Z][\w.+#-]*(?: [A-Z][\w.+#-]*)?)",
                group(1),
            ),
            (rf"{who}(?:用|使用|喜欢用|改用|偏好)\s*([A-Za-z][\w.+#-]*)", group(1)),
        ],
    }
    return {
        k: [(re.compile(p, re.I if k in ("Role",) else 0), f) for p, f in v]
        for k, v in rules.items()
    }


_RULES: dict[str, list[_Rule]] | None = None


def is_source(entry: MemoryEntry) -> bool:
    """True when the profile may be derived from ``entry``: an Active preference or fact
    scoring at least 0.5, not condensed into another (a change to any other memory leaves
    the derived profile as it was)."""
    return (
        entry.category in ("preference", "fact")
        and entry.score >= PROMPT_MIN_SCORE
        and not entry.condensed_into
    )


def source_key(entry: MemoryEntry) -> tuple[float, datetime, str, str]:
    """The order of the memories the profile is derived from: the strongest first (then the
    oldest, then by text: ids differ between files)."""
    return (-entry.score, entry.created_at, entry.content, entry.id)


def derive(entries: Sequence[MemoryEntry]) -> list[ProfileLine]:
    """The profile derived from the Active preference and fact memories scoring at least 0.5
    (their score as written: the profile changes only when the memories do)."""
    global _RULES
    if _RULES is None:
        _RULES = _rules()
    strong = sorted((e for e in entries if is_source(e)), key=source_key)[:MAX_SOURCES]
    lines: list[ProfileLine] = []
    for label, rules in _RULES.items():
        values: dict[str, list[str]] = {}
        for entry in strong:
            text = entry.content.replace("\n", " ")
            for pattern, pick in rules:
                for match in pattern.finditer(text):
                    found = _plain(one_line(pick(match).strip(), _VALUE_MAX))
                    if found:
                        values.setdefault(found, []).append(entry.id)
            if values and label not in ("Tools", "Languages"):
                break  # a single value: the strongest memory's
        if values:
            chosen = list(values.items())[: _LIST_MAX if label in ("Tools", "Languages") else 1]
            ids = tuple(dict.fromkeys(i for _, found in chosen for i in found))
            lines.append(ProfileLine(label, ", ".join(v for v, _ in chosen), ids))
    preferences = [e for e in strong if e.category == "preference"][:_PREFERENCES]
    if preferences:
        said = _plain("; ".join(one_line(e.content, 120).rstrip("。.") for e in preferences))
        lines.append(ProfileLine("Preferences", said, tuple(e.id for e in preferences)))
    return lines


def _plain(value: str) -> str:
    """A derived value that cannot open a comment, a tag, a code span or a link in the
    file: the memory's own text is data, never structure."""
    kept = "".join(c for c in _UNSAFE.sub("", value) if c.isprintable())
    return kept.strip().rstrip(".,;:!?。，；：！？").strip()


_UNSAFE = re.compile(r"[<>`\[\]\\]")


def sources_of(text: str) -> tuple[str, ...]:
    """The ids of the memories a derived line came from (none for a person's line)."""
    marker = _DERIVED_RE.search(text)
    if marker is None:
        return ()
    return tuple(i.strip() for i in marker.group(1).split(",") if i.strip())


def in_groups(
    lines: Sequence[str], entries: Sequence[MemoryEntry], wanted: frozenset[str] | None
) -> list[str]:
    """The profile lines a reader limited to the groups ``wanted`` may see: a person's lines,
    and the derived lines whose memories are all in those groups (None: every line)."""
    if wanted is None:
        return list(lines)
    group = {e.id: e.group or "none" for e in entries}
    return [line for line in lines if all(group.get(i, "none") in wanted for i in sources_of(line))]


def _bare(line: str) -> str:
    return line.strip().removeprefix("- ").removeprefix("* ").strip()


def shown(lines: Sequence[str]) -> list[str]:
    """The profile as shown to a model, one line an item: ``Label: value`` (the lines under
    it joined to the value), without the comments, hidden labels (``-``) left out; a
    person's other items as written."""
    out: list[str] = []
    for item in lines:
        first, *under = item.split("\n")
        more: list[str] = []
        for line in under:
            if line.strip()[:2] in ("- ", "* ", "+ ") or not more:
                more.append(_bare(line))
            else:
                more[-1] = f"{more[-1]} {line.strip()}"  # the rest of a paragraph
        more = [m for m in more if m]
        read = read_line(first)
        if read is None:
            paragraph = first[:2] not in ("- ", "* ", "+ ")
            joiner = " " if paragraph else "; "
            text = joiner.join(t for t in [_bare(first), *more] if t)
        elif read[1] == "-":
            continue
        else:
            value = "; ".join(t for t in [read[1], *more] if t)
            if not value:
                continue
            text = f"{read[0]}: {value}"
        if text:
            out.append(text)
    return out


def ordered(lines: Sequence[str]) -> list[str]:
    """``lines`` in the profile's order: the labels as in :data:`LABELS`, then a person's
    other lines, each group in the order given."""
    order = {label.casefold(): n for n, label in enumerate(LABELS)}

    def key(pair: tuple[int, str]) -> tuple[int, int]:
        label = label_of(pair[1])
        return order.get(label, len(LABELS)) if label else len(LABELS), pair[0]

    return [text for _, text in sorted(enumerate(lines), key=key)]


def profile_lines(person: Sequence[str], entries: Sequence[MemoryEntry]) -> list[str]:
    """The Profile section's lines: a person's lines as written and the derived lines for
    every label a person's line does not set, in the profile's order."""
    taken = {label for label in map(label_of, person) if label is not None}
    derived = [render_line(line) for line in derive(entries) if line.label.casefold() not in taken]
    return ordered([*person, *derived])
