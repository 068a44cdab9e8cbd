"""Groups: the area of life a memory belongs to (seed 001, Phase 3: "work" / "life").

A group is optional, one word, kept in the memory's heading (``### [id] fact | 0.80 | ... | 3 |
work``) so a person can set or change it by hand. An LLM backend names it with the memory;
otherwise :func:`guess_group` decides from the words, and says nothing (None) when the words do
not clearly point one way: a memory without a group is shown to every filter-free reader, and
a wrong group would hide it from the prompt of a project that filters.

Filters (:func:`matches`) take one group or several, comma-separated; a memory without a group
passes only a filter that names ``none`` or ``-``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["GROUPS", "filter_problem", "guess_group", "matches", "parse_filter"]

#: The groups the rules assign. A person (or an LLM) may use any other word.
GROUPS = ("work", "life")

_WORK_EN = (
    "work job office colleague colleagues coworker coworkers boss manager team teammate "
    "teammates client clients customer customers meeting meetings standup sprint deadline "
    "deadlines project projects repo repository code coding codebase commit commits branch "
    "deploy deploys deployment deployments release releases server servers staging prod "
    "production database api apis endpoint backend frontend bug bugs test tests pytest ci "
    "pipeline pipelines docker kubernetes review reviews pr prs ticket tickets jira slack "
    "employer company startup salary promotion interview career engineer developer "
    "programmer designer nurse teacher lawyer shift shifts hospital report reports "
    "presentation slides invoice invoices contract contracts quarterly roadmap python "
    "typescript javascript rust golang java sql linux framework library lint linter editor "
    "ide vim emacs vscode terminal git github gitlab"
)
_LIFE_EN = (
    "family wife husband partner girlfriend boyfriend kid kids child children son daughter "
    "baby mom dad mother father parents sister brother grandma grandpa friend friends dog "
    "dogs cat cats pet pets home house apartment flat rent landlord gym workout run running "
    "marathon yoga swim swimming hike hiking bike cycling football soccer tennis climbing "
    "dentist appointment birthday anniversary wedding vacation holiday holidays "
    "trip travel flight hotel recipe recipes cook cooking dinner lunch breakfast coffee tea "
    "diet vegetarian vegan allergic allergy allergies health sleep weekend weekends hobby "
    "hobbies guitar piano music movie movies book books novel reading garden gardening "
    "church groceries shopping"
)
_WORK_ZH = (
    "工作 上班 公司 同事 老板 领导 经理 团队 客户 会议 周会 例会 站会 项目 需求 代码 仓库 提交 "
    "分支 部署 上线 发布 服务器 数据库 接口 后端 前端 测试 加班 面试 工资 薪资 简历 报告 汇报 "
    "周报 日报 合同 发票 产品 技术 开发 工程师 程序员 编程 框架 运维"
)
_LIFE_ZH = (
    "家人 家里 老婆 老公 妻子 丈夫 孩子 儿子 女儿 宝宝 爸爸 妈妈 父母 爸妈 姐姐 妹妹 哥哥 弟弟 "
    "奶奶 爷爷 朋友 女朋友 男朋友 狗 猫 宠物 房租 房东 租房 健身 跑步 马拉松 瑜伽 游泳 爬山 骑车 "
    "足球 篮球 羽毛球 牙医 看病 医院 生日 纪念日 婚礼 旅行 旅游 度假 假期 机票 酒店 做饭 菜谱 "
    "晚饭 午饭 早饭 咖啡 奶茶 减肥 素食 过敏 睡觉 周末 爱好 吉他 钢琴 电影 小说 读书 买菜 购物"
)

_WORD_RE = re.compile(r"[a-z][a-z'+#]*")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_EN = {"work": _words(_WORK_EN), "life": _words(_LIFE_EN)}
_ZH = {"work": tuple(_WORK_ZH.split()), "life": tuple(_LIFE_ZH.split())}


def guess_group(text: str) -> str | None:
    """``"work"`` or ``"life"`` when the words of ``text`` clearly point to one (at least one
    cue, and twice as many as the other has), else None."""
    lowered = text.casefold()
    words = set(_WORD_RE.findall(lowered))
    counts = {
        group: len(words & _EN[group]) + sum(1 for cue in _ZH[group] if cue in lowered)
        for group in GROUPS
    }
    work, life = counts["work"], counts["life"]
    if work and work >= 2 * life:
        return "work"
    if life and life >= 2 * work:
        return "life"
    return None


def parse_filter(value: str | Iterable[str] | None) -> frozenset[str] | None:
    """A group filter as a set of names (``none`` for memories without a group); None: no
    filter. ``value`` is one name, comma-separated names, or several."""
    if value is None:
        return None
    parts = value.split(",") if isinstance(value, str) else [p for v in value for p in v.split(",")]
    names = {p.strip().casefold() for p in parts if p.strip()}
    names = {"none" if n == "-" else n for n in names}
    return frozenset(names) or None


_NAME_RE = re.compile(r"[^\W_][\w-]{0,39}")


def filter_problem(value: str) -> str | None:
    """What is wrong with a group filter as a person wrote it ("work, life", "none"), or None
    when every name in it can be a group."""
    names = [p.strip() for p in value.split(",")]
    if not any(names):
        return "names no group"
    bad = [n for n in names if n and n != "-" and _NAME_RE.fullmatch(n) is None]
    if bad:
        return (
            f"{', '.join(map(repr, bad))} is not a group: one word of letters, digits, '-' "
            "or '_', several separated by commas"
        )
    return None


def matches(group: str | None, wanted: frozenset[str] | None) -> bool:
    """True when a memory of ``group`` passes the filter ``wanted`` (None: every memory)."""
    if wanted is None:
        return True
    return (group or "none") in wanted
