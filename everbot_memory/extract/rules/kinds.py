"""The kind of memory a sentence is, by the words people use for each kind."""

from __future__ import annotations

import re

from ...core.entry import Category

__all__ = ["kinds"]

# The kind of a memory by what it says, first match wins: the words people use for each kind.
_KINDS: list[tuple[Category, re.Pattern[str]]] = [
    (
        "todo",
        re.compile(
            r"\b(?:need to|needs to|have to|has to|got to|gotta|must|remind|reminder|appointment|"
            r"deadline|due|renew|sign up|register|book|schedule[ds]?|submit|file)\b"
            r"|提醒|记得|要去|得去|需要|预约|截止|到期|报名|别忘",
            re.I,
        ),
    ),
    (
        "decision",
        re.compile(
            r"\b(?:decided|decide|agreed|going with|go with|went with|chose|chosen|picked|"
            r"settled on|from now on|switching to|we'll use|we will use|standardi[sz]e|"
            r"decision|made up my mind|starting today)\b"
            r"|决定|定了|商量好|统一用|改用|以后都|从现在起|想好了|从今天(?:开始|起)",
            re.I,
        ),
    ),
    (
        "preference",
        re.compile(
            r"\b(?:prefer|prefers|preferred|like|likes|love|loves|hate|hates|can't stand|"
            r"cannot stand|enjoy|enjoys|favou?rite|rather|not a fan|fan of|into|allergic|"
            r"avoid|avoids|don't eat|don't drink)\b"
            r"|喜欢|偏好|更爱|爱喝|爱吃|讨厌|受不了|不吃|不喝|过敏|习惯用|倾向",
            re.I,
        ),
    ),
    (
        "workflow",
        re.compile(
            r"\b(?:always|usually|every (?:day|morning|evening|night|week|weekday|monday|"
            r"tuesday|wednesday|thursday|friday|saturday|sunday)|each (?:day|morning|week)|"
            r"routine|habit|typically|normally)\b"
            r"|每天|每周|每个月|每晚|每早|早上都|晚上都|一般都|通常|习惯|每次",
            re.I,
        ),
    ),
    (
        "skill_usage",
        re.compile(
            r"\b(?:learning|fluent|proficient|native speaker|speak|speaks|coding in|write in|"
            r"i use|we use|using|vim|neovim|emacs|ide|editor)\b"
            r"|在学习|在自学|自学|学会了|会说|母语|用的是|常用",
            re.I,
        ),
    ),
    (
        "experience",
        re.compile(
            r"\b(?:went|visited|tried|finished|completed|ran|traveled|travelled|last (?:week|"
            r"month|year|weekend|summer)|yesterday|ago|used to|once)\b"
            r"|去过|上周|去年|昨天|以前|曾经|刚刚|试过",
            re.I,
        ),
    ),
]


def kinds(said: str) -> list[Category]:
    """The kinds of memory whose words ``said`` uses, strongest first."""
    return [category for category, pattern in _KINDS if pattern.search(said)]
