"""The Chinese rules: what a user says explicitly about themselves (我喜欢…, 我在…工作)."""

from __future__ import annotations

import re

from .dates import WHEN_ZH
from .wording import Rule, zh_third_person

__all__ = ["RULES"]


# A parent named in one character, as said ("我妈") and as written of the user ("用户的妈妈").
_KIN = {"妈": "妈妈", "爸": "爸爸"}


def _news(said: str) -> str:
    """The news as a memory about the user, 用户 put where chat dropped the subject."""
    text = zh_third_person(re.sub(r"(?:哈+|呜+|啊+|嘿嘿|耶|[~～]+)$", "", said.strip()))
    return text if text.startswith("用户") else "用户" + text


def _zh_rules() -> list[Rule]:
    c = re.compile
    return [
        (
            c(r"^(?:请|你)?(?:帮我)?(?:记住|记一下|记下来?|记着)(?:吧|哈)?[：:，, ]*(.{3,})$"),
            "explicit",
            "high",
            lambda m: zh_third_person(m.group(1)),
        ),
        (
            # A turn of the user's life, said as news, with or without 我 ("我怀孕了", "今天被裁了
            # 干了八年", "刚领养了一只猫", "上个月确诊了甲减").
            c(
                r"^(?:我|本人)?(?:(?:刚刚?|终于|已经|也|上个?月|上周|今天|昨天|前几天|前两天|最近)[，, ]?)*"
                r"(?:发现)?(?:怀孕了|怀孕\d+周|被裁(?:员)?了|被辞退了|被优化了|领养了|捡了一只|"
                r"结婚了|离婚了|订婚了|毕业了|退休了|确诊了?|查出(?:来)?了?)"
                r"([^，,。！!？?~～ ]{0,30})"
            ),
            "fact",
            "high",
            # A diagnosis without what it was is nothing to keep ("我确诊了").
            lambda m: _news(m.group(0)) if m.group(1) or "确诊" not in m.group(0) else None,
        ),
        (
            c(r"^我(?:的名字)?叫([\u4e00-\u9fffA-Za-z]{1,12})$"),
            "fact",
            "high",
            lambda m: f"用户叫{m.group(1)}",
        ),
        (
            c(r"^我的名字是([\u4e00-\u9fffA-Za-z ]{1,20})$"),
            "fact",
            "high",
            lambda m: f"用户叫{m.group(1).strip()}",
        ),
        (
            c(r"^我(?:现在|目前)?在(.{2,30}?)(?:工作|上班|任职)(.*)$"),
            "fact",
            "high",
            lambda m: f"用户在{m.group(1)}工作{m.group(2).rstrip('。')}",
        ),
        (
            c(r"^(?:我(?:现在|目前)?|现在|目前)住在(.{2,30})$"),
            "fact",
            "high",
            lambda m: f"用户住在{zh_third_person(m.group(1))}",
        ),
        (c(r"^我对(.{1,20}?)过敏"), "fact", "high", lambda m: f"用户对{m.group(1)}过敏"),
        # A birthday in the family, said with or without 是: "我老婆生日5月21", "我妈的生日是腊月
        # 初八", "我生日3.18".
        (
            c(
                r"^我(?:的)?(老婆|老公|媳妇|妈|爸|妈妈|爸爸|儿子|女儿|对象|男朋友|女朋友|爱人|太太|丈夫|"
                r"妻子|闺女|娃)?(?:的)?生日(?:是|在)?\s*"
                r"((?:\d{1,2}|[一二三四五六七八九十]{1,3})月(?:\d{1,2}|[一二三四五六七八九十]{1,3})[日号]?"
                r"|\d{1,2}[./-]\d{1,2}|(?:正|腊|冬)月[初十廿]?[一二三四五六七八九十])"
            ),
            "fact",
            "high",
            lambda m: (
                f"用户的{_KIN.get(m.group(1) or '', m.group(1) or '')}生日是{m.group(2)}"
                if not m.group(1)
                else f"用户的{_KIN.get(m.group(1), m.group(1))}的生日是{m.group(2)}"
            ),
        ),
        # Where the user lives, by the estate's name: "我们小区叫阳光嘉园", "我住的小区叫…".
        (
            c(
                r"^我(?:们|家|住的)?(?:那个)?小区叫(?!什么|啥)([\u4e00-\u9fffA-Za-z0-9]{2,10}?)"
                r"(?=$|[\s，,。！!])"
            ),
            "fact",
            "high",
            lambda m: f"用户住的小区叫{m.group(1)}",
        ),
        # A lasting condition of the user's ("我是左撇子", "我有糖尿病").
        (
            c(
                r"^我(?:是|有)(?:个)?(左撇子|色盲|色弱|红绿色盲|[一二12]型糖尿病|糖尿病|乳糖不耐受?|素食者|"
                r"高度近视|哮喘|高血压|痛风|夜猫子|社恐|孕妇)"
            ),
            "fact",
            "high",
            lambda m: f"用户{'有' if m.group(0)[1] == '有' else '是'}{m.group(1)}",
        ),
        # A pet of the household: "我们家养了一只金毛", "我养了两只猫".
        (
            c(
                r"^我(?:们)?(?:家)?(?:里)?养了?((?:[一两二三四五六\d]+|几)(?:只|条|个|头)[\u4e00-\u9fffA-Za-z]{1,8})"
            ),
            "fact",
            "medium",
            lambda m: f"用户家养了{m.group(1)}",
        ),
        # Where the user's workplace is: "我们公司在苏州".
        (
            c(
                r"^我们?(?:的)?(公司|单位|办公室|工作室|学校)在([\u4e00-\u9fff]{2,4}?)(?=[，,。；;]|$|市|区)"
            ),
            "fact",
            "medium",
            lambda m: f"用户的{m.group(1)}在{m.group(2)}",
        ),
        (
            # "我有两个孩子", "我家有一只英短"
            c(
                r"^我(?:家)?(?:养了|有)([一两二三四五六\d]+)(?:个|只|条|位)"
                r"(.{0,8}?(?:孩子|儿子|女儿|娃|猫|狗|兄弟|姐妹|姐姐|妹妹|哥哥|弟弟))(.{0,30})$"
            ),
            "fact",
            "medium",
            lambda m: zh_third_person(m.string),
        ),
        (
            c(r"^我(?:今年)?([一二三四五六七八九十\d]{1,3})岁(.{0,20})$"),
            "fact",
            "medium",
            lambda m: zh_third_person(m.string),
        ),
        (
            c(r"^我(?:会说|会讲|母语是)(.{1,12})$"),
            "skill_usage",
            "medium",
            lambda m: zh_third_person(m.string),
        ),
        (
            c(
                r"^我是(?:一[名个位])?(?:做)?(.{0,12}(?:工程师|程序员|设计师|学生|老师|医生|产品经理|研究员|分析师|架构师|律师|会计|"
                r"(?i:hr)|人事|猎头|财务|销售|运营|测试|前端|后端|全栈|运维|护士|码农|自由职业者|全职妈妈|宝妈|"
                r"公务员|主播|编辑|记者|翻译|程序猿))(?:的)?(?![\u4e00-\u9fffA-Za-z])([^\s，,。！!？?]*)"
            ),
            "fact",
            "medium",
            lambda m: f"用户是{m.group(1)}{zh_third_person(m.group(2))}",
        ),
        (
            c(
                r"^(我们|我)?(?:最后|最终|已经)?决定(?:了)?(?:使用|用|采用|改用)(.{1,40}?)(?:，|,)?(?:而不是|而非|不用)(.{1,30})$"
            ),
            "decision",
            "high",
            lambda m: (
                f"{'团队' if m.group(1) == '我们' else '用户'}决定使用{m.group(2).strip()}而不是{zh_third_person(m.group(3))}"
            ),
        ),
        (
            c(rf"^我?(.{{0,10}}?{WHEN_ZH}.{{0,6}}?(?:要|需要|得|准备|打算|记得).{{2,40}})$"),
            "todo",
            "high",
            lambda m: (
                "用户" + zh_third_person(re.sub(r"我(?=要|需要|得|准备|打算|记得)", "", m.group(1)))
            ),
        ),
        (
            c(r"^我?(每天|每周[一二三四五六日天]?|每个?(?:早上|晚上|周末|月))(.{3,50})$"),
            "workflow",
            "medium",
            lambda m: f"用户{m.group(1)}{zh_third_person(m.group(2))}",
        ),
        (
            c(r"^我(?:一般|通常|总是|习惯)(?:都)?(.{3,50})$"),
            "workflow",
            "medium",
            lambda m: f"用户习惯{zh_third_person(m.group(1))}",
        ),
        (
            c(
                r"^我(?:很|非常|比较|特别|一直|更|从来|基本|平时|一般|现在|目前|最近|已经|也|真的|超级?|"
                r"根本|完全|向来|从小)*(?:都|就)?"
                r"(喜欢|偏好|爱用|更喜欢|倾向于|讨厌|不喜欢|受不了|不吃|不喝|吃不了|喝不了|不碰|只玩|只喝|只用|只听|"
                r"只看|只吃)(.{1,50})$"
            ),
            "preference",
            "medium",
            lambda m: _preference_zh(m),
        ),
    ]


def _preference_zh(match: re.Match[str]) -> str | None:
    verb, obj = match.group(1), match.group(2).strip().rstrip("。！!")
    # "我现在不吃牛肉了": the particle closing the sentence is no part of the thing.
    obj = re.sub(r"(?<=..)[了啦]$", "", obj)
    if not obj or obj.startswith("了") or re.match(r"[啦的呀啊吧]+(?:[\s，,。！!]|$)", obj):
        return None  # "我不喝了", "我只吃了一口": what was done once, or said before
    if obj.startswith(("这", "那", "它", "你", "他", "她")):
        return None  # "我喜欢这个方案": a reaction to the conversation, not a lasting taste
    return f"用户{verb}{obj}"


RULES = _zh_rules()
