"""Changed facts: "I moved from X to Y", "I no longer use Vue", "我不再用 Vue 了，改用 React".

A change gives a new memory and names the old value, so the known memory that holds it can be
retired; a single-valued fact (home, employer) with a new value retires the old one too.
"""

from __future__ import annotations

import re
from typing import Any

from .single_valued import contradicted, single_valued
from .wording import sentence, third_person, verb_phrase, zh_third_person

__all__ = ["CHANGES", "contradicted", "single_valued"]

# When a move happened says nothing about where the user lives now ("to Paris last month").
_WHEN_SAID = re.compile(
    r"\s+(?:last|this|in|in the|since|back in|earlier this|a few|two|three|about)\b.*$"
    r"|\s+(?:yesterday|recently|lately|ago)\b.*$",
    re.I,
)


def _without_when(value: str) -> str:
    return _WHEN_SAID.sub("", value).strip()


# A statement that a value changed: (pattern, builds the memory, which group is the old value).
_EMPLOYER = r"([A-Z][\w.&'-]*(?: [A-Z][\w.&'-]*){0,3})"
# When a change happened, said after the old value ("I left Shopify in December").
_THEN = r"(?: (?:in|last|back in|earlier this|this) \w+| \w+ ago| a \w+ ago| recently| yesterday)?"


def _employer(match: re.Match[str]) -> str:
    detail = (match.group(3) or "").strip()
    return sentence(f"The user works at {match.group(2)}" + (f" {detail}" if detail else ""))


def _no_longer(match: re.Match[str]) -> str | None:
    if not re.search(r"no longer|any ?more", match.string, re.I):
        return None
    said = f"The user no longer {verb_phrase(match.group(1))} {match.group(2).strip()}"
    then = (match.group(3) or "").strip()
    # "..., switched to React": the new value is kept with the old one's end.
    if re.match(r"(?:switched|moved|changed|went|now)\b", then, re.I):
        said += f" and {third_person(then)}"
    elif re.match(r"I(?:'m|'ve)? ", then):
        said += f", {third_person(then)}"
    return sentence(said)


def _zh_job(match: re.Match[str]) -> str:
    rest = match.group(2)
    return f"用户从{match.group(1)}离职了" + (f"，{zh_third_person(rest)}" if rest else "")


# A statement that a value changed: (pattern, builds the memory, which group is the old value).
CHANGES: list[tuple[re.Pattern[str], Any, int]] = [
    (
        re.compile(
            r"^(?:I|we)(?:'ve| have)? (?:just |recently |finally )?moved (?:\w+ )?from (.{2,40}?)"
            r" to (.{2,40})$",
            re.I,
        ),
        lambda m: sentence(f"The user lives in {_without_when(m.group(2))}"),
        1,
    ),
    (
        # "I left Shopify in December, I'm at Stripe now on the payments team"
        re.compile(
            rf"^I (?:left|quit) {_EMPLOYER}{_THEN}(?:,| and| so)? (?:now )?(?:I'm|I am|I've been)"
            rf" (?:now )?(?:at|with|working at|working for) {_EMPLOYER}(?: now)?((?: on| in| as) .*)?$",
        ),
        _employer,
        1,
    ),
    (
        # "I left Shopify and joined Stripe", "quit Acme to join Globex"
        re.compile(
            rf"^I (?:left|quit) {_EMPLOYER}{_THEN}(?:,| and| to)? (?:joined|join|started at)"
            rf" {_EMPLOYER}((?: on| in| as) .*)?$",
        ),
        _employer,
        1,
    ),
    (
        re.compile(
            r"^I(?: (?:finally|just|recently))? switched from (.{2,40}?) to (.{2,40}?)"
            r"(?: (?:last|this|in|a few|two|three) .*| recently| yesterday)?$",
            re.I,
        ),
        lambda m: sentence(f"The user switched from {m.group(1)} to {m.group(2)}"),
        1,
    ),
    (
        re.compile(
            r"^[^，,]{0,8}?我?(?:已经|刚|最近)?从(.{1,20}?)搬(?:到|去)了?([^，,。]{1,20}?)了?$"
        ),
        lambda m: f"用户住在{zh_third_person(m.group(2))}",
        1,
    ),
    (
        # "我已经从字节离职了，下个月去腾讯报到"
        re.compile(
            r"^我?(?:已经|刚|刚刚|上个月|上周)?从(.{1,12}?)(?:离职|辞职)了?(?:[，,]\s*(.{2,40}))?$"
        ),
        _zh_job,
        1,
    ),
    (
        re.compile(
            r"^I (?:no longer|don't|do not) (use|like|live in|work at|work for|eat|drink|play)"
            r" ([^,;]{2,60}?)(?: any ?more)?(?:[,;]\s*(.*))?$",
            re.I,
        ),
        _no_longer,
        2,
    ),
    (
        re.compile(
            r"^我(?:现在|已经|目前)*不再(用|使用|喜欢|住在|在)(.{1,20}?)了?(?:[，,]\s*(改用|换成|现在用|改成)(.{1,20}))?$"
        ),
        # The user's own words, about the user: "我不再用 Vue 了，改用 React" -> "用户不再用 Vue，改用 React".
        lambda m: "用户" + re.sub(r"\s*了?\s*([，,])\s*", "，", m.string[1:]).rstrip("了 "),
        2,
    ),
    (
        # The old tool dropped, then the new one, with what it is used for in front ("现在记账
        # 都不用Excel了，改成用随手记，..."): what follows the new value is another clause.
        re.compile(
            r"^(?:我们?)?(?:现在|已经|目前)*([^，,。我]{0,8}?)(?:我们?)?(?:现在|已经|目前)*(?:都|也)?"
            r"(?:不再用|不用|不使用)\s*"
            r"([^，,。]{1,20}?)\s*了?[，,]\s*(?:改用|换成用?|改成用?|换用|现在用)\s*([^，,。？?]{1,20})"
        ),
        lambda m: (
            f"用户{m.group(1)}现在用{m.group(3).strip().rstrip('了')}，不再用{m.group(2).strip()}"
        ),
        2,
    ),
]
# Facts with one value at a time: a new one contradicts the known one with another value. The
# subject may be the user in the third person, the user's own "I" (a memory typed as said), or
# left out ("lives in Paris", as typed to `remember`).
