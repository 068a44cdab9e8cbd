"""Single-valued facts (a home, an employer): a memory giving a new value retires the one
giving the old value. Apart from the rest of the rules, so that a ``remember`` checks its
text without compiling them all (:mod:`.changes` uses these too).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...core.candidate import Candidate
    from ...core.proposal import Proposal

__all__ = ["contradicted", "single_valued"]

_SINGLE_VALUED = [
    re.compile(
        r"^(?:(?:the )?user (?:lives|is based)|i (?:live|am based)|lives|is based) in (.+?)$"
        r"|^(?:用户|我)?住在(.+)$",
        re.I,
    ),
    re.compile(
        r"^(?:(?:the )?user works|i work|works) (?:at|for) (.+?)(?: as .*)?$"
        r"|^(?:用户|我)在(.+?)工作",
        re.I,
    ),
]


def _value(match: re.Match[str]) -> str:
    """The fact's value, compared without case and the sentence's final stop."""
    return (match.group(1) or match.group(2)).strip().rstrip(".!。！").strip().casefold()


def single_valued(content: str) -> bool:
    """Whether ``content`` gives a fact with one value at a time (a home, an employer): only
    such a memory can retire a known one by :func:`contradicted` without an old value."""
    text = content.strip()
    return any(pattern.match(text) for pattern in _SINGLE_VALUED)


def contradicted(
    candidate: Candidate | Proposal, old_value: str | None, known: list[tuple[str, str]]
) -> tuple[str, ...]:
    """Ids of known memories the candidate replaces."""
    ids = []
    if old_value:
        # "Nordwind Logistics;" names the memory that says "... Nordwind Logistics."
        needle = old_value.strip().rstrip(",;:.!?、，；：。！？").strip().casefold()
        ids += [i for i, content in known if needle and needle in content.casefold()]
    for pattern in _SINGLE_VALUED:
        new = pattern.match(candidate.content.strip())
        if not new:
            continue
        value = _value(new)
        for entry_id, content in known:
            old = pattern.match(content.strip())
            if old and _value(old) != value:
                ids.append(entry_id)
    return tuple(dict.fromkeys(ids))
