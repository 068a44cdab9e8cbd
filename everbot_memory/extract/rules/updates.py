"""What a sentence does to what is already known: asks to forget it, or says it changed.

People rarely say "forget that the user ...". They say "you can drop the marathon stuff",
"that note about me being vegan, get rid of it", "学吉他那个事你忘了吧", "把我住址那条删了吧".
And a change comes in passing: "sold the Civic last weekend", "we moved the whole team off
Jira to Linear", "我已经从阿里离职了", "Notion 我已经不用了". Both are read the same way: a
sentence with the words of a request to forget (or of a change) names the known memory it
shares the most telling words with.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...core.text import CJK_RE, search_tokens

__all__ = ["changed_memories", "forget_request"]

_FORGET = re.compile(
    r"\b(?:forget|drop|delete|remove|erase|scrap|scratch|get rid of|ignore what|don'?t keep|"
    r"do not keep|stop remembering|don'?t remember|no need to remember|stop reminding me)\b"
    r"|忘了吧|忘掉|忘记|删了|删掉|删除|去掉|别记|不用记|不要记|先别记|当没听过|别存|不用存",
    re.I,
)
# "remove the mold from the shower", "delete the old branch": a request about a thing in the
# world, not about a memory, names no memory and has none of these.
_ABOUT_MEMORY = re.compile(
    r"\b(?:thing|stuff|note|notes|memory|memories|that|what i said|about me|you(?:'ve)? got|"
    r"the whole thing|earlier|info|detail|details|entry)\b|那个|那条|那些|的事|这事|那事|记录|说的|说过",
    re.I,
)
_CHANGE = re.compile(
    r"\b(?:moved|move[ds]? (?:to|from|off)|left|quit|sold|cancel(?:l)?ed|switched|switching|"
    r"no longer|not anymore|any ?more|never going back|instead of|replaced|gave up|stopped|"
    r"retired|graduated|defended|divorced|broke up|now (?:at|in|with|using|on)|"
    r"off \w+ (?:to|onto)|from \w+ to|goodbye|used to)\b"
    r"|搬|离职|辞职|换了|换成|改用|迁到|迁移|卸了|不再|不用了|已经不|调到|调去|转到|放弃|退了|送[给我]|不吃素",
    re.I,
)


def _telling(text: str) -> set[str]:
    """The words that tell a memory apart: search tokens without single CJK characters."""
    return {t for t in search_tokens(text) if len(t) > 1 or not CJK_RE.match(t)}


def _best(said: str, known: Sequence[tuple[str, str]], least: int) -> list[str]:
    """Ids of the known memories sharing the most telling words with ``said`` (at least
    ``least``); several only when they tie."""
    words = _telling(said)
    scored = [(len(words & _telling(content)), entry_id) for entry_id, content in known]
    top = max((n for n, _ in scored), default=0)
    if top < least:
        return []
    return [entry_id for n, entry_id in scored if n == top]


def forget_request(said: str, known: Sequence[tuple[str, str]]) -> str | None:
    """The id of the known memory ``said`` asks to forget, if it asks and one stands out."""
    if not known or not _FORGET.search(said) or not _ABOUT_MEMORY.search(said):
        return None
    ids = _best(said, known, 1)
    return ids[0] if len(ids) == 1 else None


def changed_memories(said: str, known: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """Ids of the known memories ``said`` says are no longer so ("sold the Civic")."""
    if not known or not _CHANGE.search(said):
        return ()
    return tuple(_best(said, known, 1))
