"""The user's words cut into sentences, after secrets are taken out.

Redaction comes first, so that no boundary falls inside a secret ("S3cure!Pass" is one
password, not a sentence ending in "!"). The cutting is sentencex's, which knows
abbreviations ("St.", "Dr.", "e.g."), numbers and versions ("3.12.1"), host names
("staging.acme.io") and addresses, in English, Chinese and many other languages.
"""

from __future__ import annotations

import functools
import re

from sentencex import segment

from ...core.redaction import redact
from ...core.text import CJK_RE, CODE_SPAN_RE

__all__ = ["sentences"]

_SPACE = re.compile(r"[ \t]+")
# Pasted code, logs and tool output say nothing in the user's voice.
_FENCE = re.compile(r"^\s*(```|~~~).*?^\s*\1[^\n]*$", re.S | re.M)
# A line opening with a keyword is code only in code's shape: prose opens with the same words
# ("from now on answer in Spanish", "class starts at 9", "let me know", "return it by Friday").
_CODE_LINE = re.compile(
    r"^\s*(?:\$ |>>> |at \S+|File \"|Traceback|[{}\[\]();]+$|(?:SELECT|INSERT|UPDATE|DELETE)\b"
    r"|from [\w.]+ import\b|import [\w.]+(?:\s*,\s*[\w.]+)*(?: as \w+)?\s*;?$"
    r"|(?:async )?def \w+\s*\(|class \w+\s*[(:{]|(?:const|let|var) [\w{}\[\], ]+=|function\b\s*\w*\s*\("
    r"|return\b(?:\s*$|[^A-Za-z\s]|\s+\S+\s*;?$|.*[(){}\[\];=<>]))|^\s{4,}\S|[{};]\s*$"
    r"|\w\([^)]*\)\s*$|\s[=!<>]=?\s|\bERR!|^\d{4}[/-]\d\d[/-]\d\d[ T]\d\d:\d\d|^\w+(?:Error|Exception):"
)
# Punctuation prose uses; anything else (=, {}, <>, /, \\, |, _, *, #, ...) is code's.
_PROSE_MARKS = set(" .,;:!?'\"()-–—…“”‘’。，、；：！？（）《》「」～~%$@&+/")


# "user pta.treasurer / pass Lincoln!Elem2019": a login written out, whose password the
# secret formats do not know by the word "pass".
_LOGIN = re.compile(
    r"(\b(?:user(?:name)?|login|account)\s*[:=]?\s*\S+\s*(?:/|,|and)\s*(?:pass|pw|pwd|passwd)"
    r"\s*[:=]?\s*)(\S+?)(?=[.,;]?(?:\s|$))",
    re.I,
)


# Contractions typed without their apostrophe ("im allergic", "ive been", "dont like"): the
# rules read them as written with it. Only where no other word is spelled so ("its", "wont",
# "ill", "id", "were", "shed" are words).
_BARE_CONTRACTION = re.compile(
    r"(?<![\w'’])(?:(?P<i>[Ii](?P<rest>m|ve))|(?P<n>(?i:do|does|did|is|was|are|have|has|had|"
    r"ca|could|would|should|are)n)(?P<t>t)|(?P<w>(?i:what|that|how|where|who|there|here))(?P<s>s))"
    r"(?= [a-z])"
)


def _apostrophes(line: str) -> str:
    def put(match: re.Match[str]) -> str:
        if match.group("i"):
            return f"I'{match.group('rest')}"
        if match.group("w"):
            return f"{match.group('w')}'s"
        return f"{match.group('n')}'{match.group('t')}"

    return _BARE_CONTRACTION.sub(put, line)


# (Code quoted inside a sentence, "ruff flags `fmt = lambda x: ...` (E731), i always run it
# before i push": the sentence around it is prose all the same.)


def _prose(line: str) -> bool:
    """True for a line written in words rather than code or machine output."""
    if not CODE_SPAN_RE.sub("", line).strip(" .,;:!?()-"):
        return False  # nothing but code
    line = CODE_SPAN_RE.sub("code", line)
    if _CODE_LINE.search(line):
        return False
    symbols = sum(not (c.isalnum() or c.isspace() or c in _PROSE_MARKS) for c in line)
    return symbols <= 0.1 * len(line)


# Words the cutting takes for abbreviations (Maine, Oklahoma, an initial) that chat ends a
# sentence with: "yes sunday works for me. heads up i'm allergic to bees", "love u. see you".
_CHAT_END = re.compile(r"(?i:(?<![\w.])(?:me|u|ok)\.)(\s+)(?=[a-z])")


def _chat_ends(part: str) -> list[str]:
    """``part`` cut after each of those words (see _CHAT_END), the words kept."""
    pieces, start = [], 0
    for match in _CHAT_END.finditer(part):
        pieces.append(part[start : match.start(1)])
        start = match.end(1)
    return [*pieces, part[start:]]


_TITLE_AFTER_CJK = re.compile(
    rf"(?<={CJK_RE.pattern})((?:Mr|Mrs|Ms|Dr|Prof|St|Mt|Jr|Sr|No|vs|Inc|Ltd|Co))\.(?=\s*\w)"
)


@functools.lru_cache(maxsize=4096)
def sentences(text: str) -> tuple[str, ...]:
    """The sentences of one message, secrets already replaced by placeholders."""
    clean = _FENCE.sub("\n\n", _LOGIN.sub(r"\1[redacted:password]", redact(text).text))
    clean = "\n".join(line if _prose(line) else "" for line in clean.split("\n"))
    found: list[str] = []
    for paragraph in re.split(r"\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)", clean):
        language = "zh" if len(CJK_RE.findall(paragraph)) * 3 > len(paragraph) else "en"
        if language == "zh":
            # An English title right after a Chinese character ("导师Dr. Zhang") is not seen
            # as one: its dot is held out of the cutting, and put back.
            paragraph = _TITLE_AFTER_CJK.sub("\\1\ue000", paragraph)
        parts = segment(language, paragraph)
        if language == "en":
            parts = (piece for part in parts for piece in _chat_ends(part))
        for part in parts:
            for line in part.replace("\ue000", ".").split("\n"):
                line = _SPACE.sub(" ", line).strip()
                if language == "en":
                    line = _apostrophes(line)
                if line:
                    found.append(line)
    return tuple(found)
