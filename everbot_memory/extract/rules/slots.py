"""Single-valued facts (where the user lives, who employs them, which editor they use...) read
as slots: a known memory holds a slot's value, a sentence may give the slot a new one.

People rarely announce a change with "I moved from X to Y". They say the new value as the
present: "got the keys to our place in Leeds", "my new job at Acme", "been on Helix since
March", "我跳槽到网易了", "搬到苏州快两个月了", "现在改用 Zed". So a change is read as
structure, not as a phrase: the slot the sentence speaks of, its new value in the user's words,
and a present-tense cue (the verb of a move, "now", "new", "since", 现在, 改用...). A known
memory on the same slot with another value is what the sentence replaces.

A slot's value in a sentence is only taken when the sentence states it: a question about the
slot ("should I move to Berlin?"), a plan ("thinking of switching to Rust") or a value said to
be left ("I quit Vim") gives no new value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ...core.entry import Category
from ...core.text import CJK_RE
from .dates import WEEKDAYS

__all__ = [
    "NewValue",
    "denied",
    "new_values",
    "past_values",
    "replaced_by",
    "slot_values",
    "still_named",
]

_CJK = CJK_RE.pattern[1:-1]
# A name as people write it: capitalized words ("Round Rock", "St Albans", "Kestrel Pay").
_NAME = r"(?-i:[A-Z][\w&'.-]*(?: (?:of |de |la |le |am |upon )?(?-i:[A-Z][\w&'.-]*)){0,3})"
# Words that may be capitalized at a sentence's start but name nothing.
_NOT_NAMES = frozenset(
    [
        # A title alone ("it's Dr now") is no name.
        "dr",
        "dr.",
        "mr",
        "mr.",
        "mrs",
        "mrs.",
        "ms",
        "ms.",
        "prof",
        "prof.",
        "professor",
        "doctor",
        "sir",
        "i",
        "the",
        "a",
        "an",
        "my",
        "our",
        "we",
        "it",
        "this",
        "that",
        "there",
        "here",
        "now",
        "then",
        "home",
        "work",
        "last",
        "next",
        "new",
        "old",
        # A day is no place ("my dentist appointment got moved to Thursday").
        *WEEKDAYS.split("|"),
        "today",
        "tomorrow",
        "tonight",
    ]
)


@dataclass(frozen=True)
class NewValue:
    """A slot given a value the user states as theirs now."""

    slot: str
    value: str
    category: Category
    #: The value in the user's own words, when they differ from its name ("小米", "Xiaomi").
    words: str = ""
    #: Said as the user's before, not now ("back when I was at Stripe"): the memory holding
    #: it is what changed, and the value is one the user had.
    past: bool = False

    def memory(self, chinese: bool) -> str:
        """The memory the new value makes, in the language it was said in."""
        # A car keeps the model the user named ("a used Prius", not "Toyota").
        v = self.words if (chinese or self.slot == "car") and self.words else self.value
        if chinese and v[:1].isascii():
            v = f" {v}"  # "用户现在用 Mate 70"
        if self.past:
            if chinese:
                return f"用户以前住在{v}" if self.slot == "home" else f"用户以前在{v}工作"
            if self.slot == "home":
                return f"The user used to live in {v}."
            return f"The user used to work at {v}."
        if chinese and self.slot == "role" and v.startswith("带"):
            return f"用户现在{v}"
        if chinese:
            return {
                "home": f"用户现在住在{v}",
                "employer": f"用户现在在{v}工作",
                "role": f"用户现在是{v}",
                "birthday": f"用户的生日是{v}",
                "car": f"用户现在开{v}",
            }.get(self.slot, f"用户现在用{v}")
        return {
            "home": f"The user lives in {v}.",
            "employer": f"The user works at {v}.",
            "manager": f"The user's manager is {v}.",
            "name": f"The user's name is {v}.",
            "role": f"The user is now {'an' if v[:1].lower() in 'aeiou' else 'a'} {v}.",
            "birthday": f"The user's birthday is {v}.",
            "car": f"The user drives {'an' if v[:1].lower() in 'aeiou' else 'a'} {v}.",
        }.get(self.slot, f"The user uses {v}.")


# Tools that are used one at a time: the slot, the words that name each value (a memory and a
# sentence that write a value differently still agree: "VS Code", "vscode"), and the category
# of the memory a new value makes.
_TOOLS: list[tuple[str, Category, dict[str, str]]] = [
    (
        "editor",
        "skill_usage",
        {
            "VS Code": r"vs ?code|visual studio code",
            "Neovim": r"neovim|nvim",
            "Vim": r"(?<!neo)vim(?!\w)",
            "Emacs": r"emacs|doom emacs|spacemacs",
            "Cursor": r"cursor",
            "PyCharm": r"pycharm",
            "IntelliJ": r"intellij",
            "Sublime Text": r"sublime",
            "WebStorm": r"webstorm",
            "Zed": r"zed",
            "Helix": r"helix",
            "Xcode": r"xcode",
            "Eclipse": r"eclipse",
        },
    ),
    (
        "phone",
        "fact",
        {
            "iPhone": r"iphone|苹果手机",
            "Pixel": r"pixel",
            "Galaxy": r"galaxy|samsung|三星",
            "OnePlus": r"oneplus|一加",
            "Xiaomi": r"xiaomi|小米",
            "Huawei": r"huawei|华为|mate ?\d{2}(?: ?pro)?|mate ?x\d?",
            "Android": r"android|安卓",
        },
    ),
    (
        "notes",
        "skill_usage",
        {
            "Notion": r"notion",
            "Obsidian": r"obsidian",
            "Evernote": r"evernote|印象笔记",
            "OneNote": r"onenote",
            "Logseq": r"logseq",
            "Bear": r"bear(?= app| notes)",
            "Apple Notes": r"apple notes",
            "语雀": r"语雀",
            "飞书文档": r"飞书文档",
        },
    ),
    (
        "tracker",
        "fact",
        {
            "Jira": r"jira",
            "Linear": r"linear(?= app|\b(?! algebra| regression| model| time))",
            "Trello": r"trello",
            "Asana": r"asana",
            "ClickUp": r"clickup",
            "Monday": r"monday\.com",
            "Shortcut": r"shortcut(?=\.com| app)",
            "YouTrack": r"youtrack",
            "Tapd": r"tapd",
            "飞书项目": r"飞书项目",
        },
    ),
    (
        "ci",
        "fact",
        {
            "Jenkins": r"jenkins",
            "GitHub Actions": r"github actions|gh actions",
            "GitLab CI": r"gitlab ci|gitlab-ci|gitlab pipelines",
            "CircleCI": r"circle ?ci",
            "Travis CI": r"travis(?: ci)?",
            "Buildkite": r"buildkite",
            "TeamCity": r"teamcity",
            "Azure Pipelines": r"azure pipelines|azure devops pipelines",
            "Bitbucket Pipelines": r"bitbucket pipelines",
        },
    ),
    (
        "database",
        "fact",
        {
            "MySQL": r"mysql",
            "PostgreSQL": r"postgres(?:ql)?|pg(?= \d)",
            "MongoDB": r"mongo(?:db)?",
            "TiDB": r"tidb",
            "SQLite": r"sqlite",
            "Oracle": r"oracle(?= db| database|数据库)",
            "SQL Server": r"sql server|mssql",
            "DynamoDB": r"dynamo(?:db)?",
            "ClickHouse": r"clickhouse",
            "OceanBase": r"oceanbase",
        },
    ),
    (
        "os",
        "fact",
        {
            "macOS": r"macos|mac os|macbook|mac(?= now| mini| studio|\s*[\u4e00-\u9fff，。]|$)",
            "Windows": r"windows(?! key)",
            "Linux": r"linux|ubuntu|fedora|arch linux|debian|nixos",
        },
    ),
    (
        "browser",
        "preference",
        {
            "Chrome": r"chrome(?!book)",
            "Firefox": r"firefox",
            "Safari": r"safari",
            "Arc": r"arc browser|(?<=to )arc\b|(?<=on )arc\b",
            "Edge": r"(?<=microsoft )edge|edge browser",
            "Brave": r"brave browser|(?<=to )brave\b|(?<=on )brave\b",
        },
    ),
    (
        "frontend",
        "skill_usage",
        {
            "React": r"react(?! native)",
            "Vue": r"vue",
            "Angular": r"angular",
            "Svelte": r"svelte",
        },
    ),
    (
        "password manager",
        "fact",
        {
            "1Password": r"1password",
            "Bitwarden": r"bitwarden",
            "LastPass": r"lastpass",
            "KeePass": r"keepass\w*",
        },
    ),
    (
        "shell",
        "skill_usage",
        {
            "zsh": r"zsh|oh-my-zsh",
            "fish": r"fish shell|(?<=to )fish\b",
            "bash": r"(?<=to )bash\b|bash as my shell",
        },
    ),
    (
        "music",
        "fact",
        {
            "Spotify": r"spotify",
            "Apple Music": r"apple music",
            "YouTube Music": r"youtube music",
            "Tidal": r"tidal",
            "网易云音乐": r"网易云",
            "QQ音乐": r"qq ?音乐",
        },
    ),
    (
        "car",
        "fact",
        {
            "Tesla": r"tesla|特斯拉",
            "Toyota": r"toyota|corolla|camry|prius|rav4|丰田",
            "Honda": r"honda|civic|accord|cr-v|本田",
            "Volkswagen": r"volkswagen|vw golf|vw polo|(?<=my )golf\b|大众",
            "BMW": r"bmw|宝马",
            "Audi": r"audi|奥迪",
            "Mazda": r"mazda|马自达",
            "Subaru": r"subaru|斯巴鲁",
            "Hyundai": r"hyundai|现代汽车",
            "Kia": r"(?<=my )kia\b|kia (?:niro|ev\d|sportage|rio|soul)",
            "Ford": r"(?<=my )ford\b|ford (?:focus|fiesta|f-150|mustang|ranger)|(?-i:Focus|Fiesta|Mustang)",
            "BYD": r"byd|比亚迪",
            "NIO": r"蔚来",
            "Li Auto": r"理想(?=汽车|\s?[lL]\d|\s?one)",
            "XPeng": r"xpeng|小鹏",
        },
    ),
    (
        "language",
        "skill_usage",
        {
            "Python": r"python",
            "Go": r"golang|(?<=\bin |\bto )(?-i:Go)\b|(?-i:Go)(?=\s*[\u4e00-\u9fff])|(?-i:Go)(?= (?:now|service|backend|code|instead)|$|[,.;，。])",
            "Java": r"java(?!script)",
            "Kotlin": r"kotlin",
            "Rust": r"rust(?! belt)",
            "TypeScript": r"typescript|ts(?= now)",
            "JavaScript": r"javascript",
            "C#": r"c#|\.net",
            "Ruby": r"ruby(?! on rails)|rails",
            "PHP": r"php",
            "Swift": r"swift(?!ly)",
            "Scala": r"scala",
            "Elixir": r"elixir",
        },
    ),
    (
        "chat",
        "fact",
        {
            "Slack": r"(?-i:Slack)(?! channel)|(?<=to |on )slack\b(?! channel)",
            "Microsoft Teams": r"microsoft teams|ms teams|(?<=to )teams\b|(?<=on )teams\b",
            "飞书": r"飞书(?!项目|文档)|lark(?= suite| messenger)",
            "钉钉": r"钉钉|dingtalk",
            "企业微信": r"企业微信|wecom",
            "Mattermost": r"mattermost",
        },
    ),
    (
        "bank",
        "fact",
        {
            "Chase": r"chase(?= bank|\b(?! after| down| the))",
            "Wells Fargo": r"wells fargo",
            "Bank of America": r"bank of america|bofa",
            "Monzo": r"monzo",
            "Revolut": r"revolut",
            "a credit union": r"credit union",
        },
    ),
]
_TOOL_RES = [
    (
        slot,
        category,
        {
            # Grouped: the word boundaries hold for every alternative of the name, not only the
            # first and the last ("ts(?= now)" is not inside "payments now").
            name: re.compile(rf"(?<![A-Za-z0-9_.])(?:{p})(?![A-Za-z0-9_])", re.I)
            for name, p in names.items()
        },
    )
    for slot, category, names in _TOOLS
]

# The words that say a tool in use now: a switch, "now", "new", "since", "these days".
_NOW_TOOL = re.compile(
    r"\b(?:switched|switching over|made the (?:switch|jump|move)|moved (?:over )?(?:to|onto)|"
    r"(?:moved|switched|migrated) (?:(?:the|our|my|whole|entire|all|every|\w+) ){1,3}(?:over )?(?:to|onto)|"
    r"migrated|jumped (?:ship )?to|went (?:over )?to|converted to|replaced|ditched|dropped|"
    r"gave up|never going back|now|nowadays|these days|"
    # Work carried from one to the other ("moving all my notes out of Notion into Obsidian").
    r"(?:out of|off of) (?:\w+ ){1,3}into|been (?:on|using|living in) \w+ "
    r"since|(?:on|using) \w+(?: \w+)? (?:since|for (?:a|the past|about|over) \w+)|"
    r"(?:all|fully|full-time) (?:in|on) |went all in|full[- ]time|day \d+ of|"
    r"no longer|not \w+ any ?more|anymore|instead|"
    # Work redone in the new one, or a use that has lasted ("rewrote the backend in Go",
    # "I've been using Zed", "最近一直用 Cursor").
    r"rewrote|rewritten|rewriting|ported|traded (?:in )?(?:\w+ ){0,3}for|caved and got|(?:i|we)(?:'ve| have)? been (?:using|on|living in|writing))\b"
    r"|新提|提了(?:一?辆|台)|提车|新买的?|入手了?|一直(?:在)?用|(?:最近|现在|如今|目前)(?:(?![不没别想])[\u4e00-\u9fff]){0,4}?(?:都|全|一直)?(?:在)?用|天天用|重写|全部迁|"
    r"换成|换到|换了|改用|改成|现在用|现在都用|现在全|全换|迁到|迁移到|转到|转投|卸了|不用了|已经不用|导进|迁进|"
    r"弃坑|入坑|投奔|用上了|换用|导到|导入到|迁移到|转(?:到|投|用|去)?\s*(?=[A-Za-z])"
    # Work moved over to a tool named in Latin letters ("已经全搬到obsidian了"); a town is
    # written in Chinese.
    r"|(?:全|都|全部|已经)?搬(?:到|去|进)了?\s*(?=[A-Za-z])",
    re.I,
)
# A tool said to be left: a value after one of these is the old one ("switched from Vim to
# Neovim", "我 VS Code 已经卸了").
_LEFT_TOOL = re.compile(
    r"\b(?:from|off|off of|out of|instead of|rather than|over|no longer (?:use|using|on)|quit|ditched|"
    r"dropped|gave up(?: on)?|replaced|away from|after \w+ (?:years?|months?) (?:of|on|with)|"
    r"leaving|left|goodbye(?: to)?|bye|sold|gave away|traded in|returned|miss(?:ed)? from|"
    r"miss about)\s+(?:my |the |our |old )*$"
    r"|\bold\s+$|(?:从|不再用|不用|卸了|放弃了?|告别|弃用|替换掉?|换掉|卖了|送了)\s*$",
    re.I,
)
# A tool of before: "之前折腾了三年的 vim", "my previous Android".
_BEFORE_TOOL = re.compile(
    r"(?:之前|以前|原来|原先|老的)[^，,。！？]{0,12}$|\b(?:previous|former|old)\s+(?:\w+\s+){0,1}$"
    r"|\bused to (?:use|be on|run)\s+$",
    re.I,
)
_LEFT_TOOL_AFTER = re.compile(
    r"^\s*(?:我们?)?(?:已经|早就|都)?(?:卸了|不用了|弃了|删了|退订了|送|卖|给|退了)|^\s*(?:is|was) (?:gone|dead|history)"
    r"|^\s*(?:\w+ ){0,2}(?:any ?more|no more)",
    re.I,
)

# The user's own setup of a tool: "my Neovim config", "our Linear board".
_SETUP = re.compile(
    r"\s*(?:config|configs|configuration|setup|set-up|dotfiles|plugins?|keybind\w*|board|"
    r"workspace|vault)\b",
    re.I,
)
# A tool being learned is not the one in use ("learning Rust on the side", "在学 Go").
_LEARNING = re.compile(r"\blearn(?:ing|t|ed)?\b[^,.;]{0,20}$|学(?:习|了)?\s*$", re.I)

# Plans, wishes, questions and conditions state no value as the user's now.
# ("maybe 40 lines" guesses a number, not a plan; "还是潮的" is "still damp": "A 还是 B" is
# asked as a question, which is cut before.)
_NOT_NOW = re.compile(
    r"\b(?:should (?:i|we)|shall (?:i|we)|thinking (?:of|about)|considering|consider|might|"
    r"(?:maybe|perhaps)(?! (?:like |about |around )?\d)|worth|whether|if|plan(?:ning)? to|"
    r"want(?:ed)? to|wanna|hoping to|"
    r"going to|gonna|will|'ll|would|could|tempted|torn between|versus|or)\b"
    r"|(?<![不理思感])想(?!起|到|法)|打算|考虑|准备|要不要|是否|如果|计划|可能|纠结|或者|哪个",
    re.I,
)

# Where the user lives: said as the place moved to, lived in now, or a home got there.
_HOME_EN = re.compile(
    rf"\b(?:moved|relocated|emigrated|moving)(?: back| over| up| down| out| across| all the way)*"
    rf"(?: here)? (?:to|into) (?:the |a )?(?P<a>{_NAME})"
    rf"|\b(?:(?:we|i) (?:now |currently )?(?:live|'re living|'m living|are living|am living)|"
    rf"(?:we're|we are|i'm|i am) (?:now |currently )?(?:based|settled|living))"
    rf" (?:out )?in (?P<b>{_NAME})"
    rf"|\b(?:keys to|closed on|bought|moved into|renting|new) (?:our |my |a |the )?(?:[\w-]+ ){{0,2}}"
    rf"(?:place|flat|apartment|house|home|condo|townhouse|loft|studio|terrace|bungalow|cottage|"
    rf"semi|duplex|rowhouse|row house)"
    rf" (?:in|out in|up in|down in|over in) (?P<c>{_NAME})"
    rf"|\b(?:since|after) (?:we |i )?(?:moved|moving|relocated|relocating) to (?P<d>{_NAME})"
    rf"|\b(?:signed|got|found) (?:a |the |our |my )?(?:new )?(?:lease|place|flat|apartment|house)"
    rf"(?: on (?:a |an |the )?[\w-]+)? in (?P<f>{_NAME})"
    rf"|\b(?:been|have been|'ve been) (?:living|based) in (?P<e>{_NAME})"
    # The user's home named as theirs ("the commute from my place in Cardiff", "our flat in
    # Leeds").
    # The first season of a new home ("our first winter in Oslo", "first summer here in Perth").
    rf"|\b(?:my|our) first (?:winter|summer|spring|autumn|fall|year|christmas)(?: here)? in (?P<i>{_NAME})"
    rf"|\b(?:my|our) (?:new )?(?:neighbou?rs?|neighbou?rhood|landlord|landlady|street)(?: here)?"
    rf" in (?P<h>{_NAME})"
    rf"|\b(?:my|our) (?:new |little |tiny |own )?(?:place|flat|apartment|house|home|condo)"
    rf" (?:here )?(?:in|out in|up in|down in|over in) (?P<g>{_NAME})"
    # A resident, a local ("I'm a Denver resident now", "officially a Berliner" is not read).
    rf"|\b(?:(?:i'm|i am|we're|we are)(?: now| officially| finally| basically)*|now|officially|"
    rf"finally) (?:an? )?(?P<here_k>{_NAME}) (?:resident|local)s?\b"
    # The way to work starts at home ("the commute from Oakland is killing me").
    rf"|\b(?:my|our) (?:daily |morning |new )?commute (?:in )?from (?P<here_m>{_NAME})(?! to (?:the )?airport)"
    rf"|\bthe (?:daily |morning )?commute (?:in )?from (?P<here_o>{_NAME})"
    rf"(?=[^.!?]{{0,40}}\b(?:is killing me|kills me|takes me|wears me))"
    # A home named by its town, once moved in ("the last boxes are unpacked in the Porto flat").
    rf"|\b(?:unpacked|unpacking|moved into|moving into|settled into|settling into|"
    rf"keys to|boxes (?:in|at)) (?:in |into )?(?:the |our |my )?(?:new )?(?P<here_n>{_NAME})"
    rf" (?:flat|apartment|place|house|condo|home)\b",
    re.I,
)
_HOME_ZH = re.compile(
    rf"(?:搬到了?|搬去了?|搬来了?|迁到|落户|定居(?:在|到)?|安家(?:在|到)?|现在住(?:在|到)?|"
    rf"目前住(?:在)?|住到了?|回到了?|新家在|房子买在了?|(?:我|我们)家(?:现在|目前|如今)(?:在|搬到了?))"
    rf"(?P<z>[{_CJK}]{{2,6}})"
    # "在成都住了快半年了": lived in a place for a while, said as the user's ("在酒店住了两晚" is
    # a stay, see _ZH_STAY).
    rf"|(?:^|我|我们|已经|现在)在(?P<w>[{_CJK}]{{2,4}}?)(?:住了|生活了|定居|安家|扎根)"
    rf"|(?:^|我|我们)?在(?P<here_v>[{_CJK}]{{2,4}}?)(?:这边|这里)的?第一(?:个|年)(?:春天|夏天|秋天|冬天|春节|年)"
    # "我们一家现在在青岛了": the household is there now.
    rf"|(?:我|我们|我们一家|全家|一家人?)(?:现在|目前|如今)都?在(?P<u>[{_CJK}]{{2,4}}?)"
    rf"(?:了|住|生活|定居|安家|落脚)"
    # Newly arrived: "来深圳快一个月了", "作为一个新上海人".
    rf"|(?:^|我|我们|刚|已经)来(?P<t>[{_CJK}]{{2,3}}?)(?:快|已经|都|才|也)?"
    rf"[一二两三四五六七八九十半几\d]+(?:个)?(?:多)?(?:天|周|星期|个月|月|年)了"
    rf"|(?:作为|我是|我这个|成了)(?:一个|一名)?新(?!来)(?P<s>[{_CJK}]{{2,3}}?)人"
    # Life in the town said as here ("深圳这边的回南天也太离谱了", "杭州这边房租贵").
    rf"|(?:^|[我在，,。！\s]|现在|目前)(?P<here_q>[{_CJK}]{{2,3}}?)(?:这边|这里)的?(?:回南天|天气|房租|房价|冬天|"
    rf"夏天|梅雨|暖气|雾霾|空气|物价|地铁|通勤|小区|邻居)"
    # Household registration got in a city ("深圳落户手续办完了").
    rf"|(?:^|[我在，,\s]|终于|已经)(?P<r>[{_CJK}]{{2,3}}?)落户"
    # The new home named by its town ("新家终于收拾完了，杭州这边的房子采光好多了").
    rf"|(?:新家|新房子?|搬家|搬过来|刚搬|搬完家?)[^。！？!?]{{0,20}}?(?P<x>[{_CJK}]{{2,3}}?)"
    rf"(?:这边|这里)的?(?:房子|家|小区|房)"
)
# Where one stays, not lives.
_ZH_STAY = re.compile(r"酒店|宾馆|民宿|朋友家|亲戚家|家里|医院|公司|宿舍|这边|那边|老家")
_HOME_ZH_STOP = re.compile(
    r"(?:了|快|已经|都|有|的|这|那|半|一|两|三|几|个|后|以后|之后|这边|那边|来|去|住|市|区).*$"
)
# Words that say the subject is someone else: "my sister moved to Paris", "他搬到成都了".
_SOMEONE_ELSE = re.compile(
    r"\b(?:he|she|they|his|her|their|(?:my|our) (?:\w+ )?(?:friend|friends|coworker|colleague|"
    r"boss|manager|brother|sister|cousin|parents?|mom|mum|dad|mother|father|son|daughter|"
    r"neighbou?r|roommate|flatmate|aunt|uncle|grandma|grandpa|in-laws))\b"
    # A partner's news is theirs, unless the user is in it ("my wife and I moved").
    r"|\bmy (?:wife|husband|partner|girlfriend|boyfriend|fianc[ée]e?|spouse)\b(?! and (?:i|me)\b)"
    # ("其他两天远程": "the other two days", no one's.)
    r"|(?<!其)他|其他(?:人|同事|几个|的人|组|部门|团队|公司|家|同学|朋友)|她|朋友|同事|领导|老板|妹|姐|哥|弟|爸|妈|父母|室友|邻居|同学"
    r"|(?<!我和)(?<!我跟)(?:老公|老婆|媳妇|男朋友|女朋友|对象)(?![和跟]我)",
    re.I,
)
# Where the user works: the new job, the first day, joining, starting.
_EMPLOYER_EN = re.compile(
    rf"\b(?:new (?:job|role|position|gig|team) (?:at|with)|first (?:day|week|month) at|"
    rf"(?:i|i've|i have|just) (?:joined|started at|started working (?:at|for))|"
    rf"(?:i'm|i am) (?:working )?(?:at|with|for)(?= (?-i:[A-Z])\S+ now)|"
    rf"(?:i'm|i am) now (?:working )?(?:at|with|for)|(?:i )?work (?:at|for)(?= (?-i:[A-Z])\S+ now)|"
    rf"(?:^|i |i've |just |finally )started (?:at|with|working (?:at|for))|"
    # The first day to come, or a job landed ("monday I start at Stripe", "landed a job at
    # Stripe"; "landed at Heathrow" is a flight).
    rf"(?:i|i'll) (?:start|am starting|'m starting) (?:at|working (?:at|for))|"
    rf"(?:i|i've|just|finally) landed (?:a|the) (?:job|role|position|gig|offer) (?:at|with)|"
    rf"(?:accepted|took|signed) (?:the|an|their) offer (?:from|at)|got hired (?:at|by)|"
    rf"onboarding at|hired (?:at|by)|(?:my )?new (?:employer|company|workplace)(?:,| is| at)?|"
    rf"(?:since|after) (?:joining|starting at)|(?:first|my) (?:paycheck|payslip|pay ?check) from|"
    # The user's own workplace named through its people ("our CEO at Shopify", "my team at
    # Canva").
    rf"(?:my|our) (?:ceo|cto|founders?|team|office|manager|boss|hr|team lead|skip-level|"
    rf"colleagues|coworkers|standups?|all-hands|onboarding)(?: over)? at)"
    rf" (?P<a>{_NAME})",
    re.I,
)
_EMPLOYER_ZH = re.compile(
    # The workplace said as here, by its people ("美团这边的同事中午都点外卖").
    rf"(?:^|[我在，,。！\s]|现在|目前)(?P<here_v>[{_CJK}A-Za-z]{{2,6}}?)(?:这边|这里)的?(?:同事|领导|老板|团队|"
    rf"工位|食堂|绩效|年终奖|加班|福利|公积金|考勤|hr|HR)"
    rf"|(?:跳槽(?:到|去)了?|入职了?|加入了?|(?:现在|目前|已经)在|换到了?|去了?|到了?)"
    rf"(?P<z>[{_CJK}A-Za-z]{{2,8}}?)(?:报到|上班|工作|入职|做|当)"
    rf"|(?:跳槽(?:到|去)了?|入职了?|加入了?)(?P<y>[{_CJK}A-Za-z]{{2,8}}?)(?:了|，|,|。|\s|$)"
    # "我现在是字节的员工了", "现在是字节的人了": one of its staff.
    rf"|(?:^|我|现在|目前|我现在|我目前)是(?P<w>[{_CJK}A-Za-z]{{2,8}}?)的(?:员工|正式员工|一员|人)"
    # "在小米上班半年了": a workplace of some time, said as the user's.
    rf"|(?:^|我|我们|已经|现在)在(?P<x>[{_CJK}A-Za-z]{{2,8}}?)(?:上班|工作)了?(?:快|已经|都|有)?"
    rf"(?:半|一|两|三|四|五|六|七|八|九|十|几|\d)"
)
# The user's role: said as a promotion or a new role ("got promoted to team lead", "升职做了
# 主管"); a memory holds it as "is a/an ...", "works as ...".
_ROLE_WORDS = (
    r"developer|engineer|designer|scientist|researcher|teacher|student|doctor|nurse|lawyer|"
    r"manager|analyst|architect|writer|consultant|founder|programmer|accountant|professor|"
    r"lead|director|head of \w+|intern|associate|principal|vp|cto|ceo|coordinator|"
    r"supervisor|specialist|editor|producer|illustrator|tester|photographer|chef|cook|"
    r"pharmacist|electrician|plumber|translator|freelancer|contractor|barista|artist|"
    r"paramedic|therapist|dentist|vet|veterinarian|journalist|librarian|mechanic|pilot|"
    r"technician|administrator|admin|recruiter|marketer|copywriter|owner|officer|"
    # A trade named by its ending: florist, optician, psychologist, photographer, midwife.
    r"(?!(?:check|wait|play|wish|short|black|white|hit)list|insist|resist|assist|persist|consist)"
    r"\w{3,}(?:ist|ician|ologist|grapher|wife)"
)
_ROLE_EN = re.compile(
    rf"\b(?:(?:got|been|was|just got|finally got) (?:promoted|bumped(?: up)?|moved up) to|"
    rf"new role as|"
    rf"(?:i'm|i am) (?:now )?(?:the |an? )?new|"
    # A change of trade said in passing ("since I retrained as a tester", "I work as a
    # translator now").
    rf"(?:i )?(?:retrained|requalified|re-skilled|reskilled) as|switched careers? to|"
    rf"(?:i|i've|i have) (?:now )?(?:become|became)|(?:since|after) becoming|"
    rf"(?:i )?now work(?:ing)? as)"
    rf" (?:an? |the )?(?P<r>(?:[\w-]+ ){{0,3}}(?:{_ROLE_WORDS}))\b"
    # A role taken ("ever since i took the EM role", "stepped into the tech lead position").
    rf"|\b(?:took|accepted|stepped into|moved into|got|landed) (?:the|an?|my new|this) "
    rf"(?P<s>(?:[\w-]+ )?(?:{_ROLE_WORDS}|(?-i:[A-Z]{{2,4}}))) (?:role|position|title|job)\b"
    rf"(?! (?:in|on) (?:a|the|our|that|this) (?:play|show|film|movie|musical|pr|pull request))",
    re.I,
)
_ROLE_ZH = re.compile(
    rf"(?:升职(?:成|为|做)了?|升(?:成|为|到)了?|被提拔(?:为|成)|当上了?|转岗(?:成|做|到|当)了?|"
    rf"转行(?:成|做|当)了?|改行(?:做|当)了?|(?:现在|目前|如今)(?:改)?(?:做|当|是)(?=[{_CJK}A-Za-z]{{0,6}}"
    rf"(?:开发|工程师|程序员|设计师|老师|医生|护士|产品|运营|销售|会计|律师|经理|主管|测试|研究员|编辑|记者)))"
    rf"(?P<q>[{_CJK}A-Za-z]{{2,8}}?)(?:了|，|,|。|！|!|$|快|已经|都|有|半|一|两|三|几|\d)"
    # The post moved to, named before 岗 or after 转岗 ("转管理岗两个月了", "转岗去做数据分析了").
    rf"|(?:^|我|已经|现在)转(?P<p>[{_CJK}A-Za-z]{{2,4}}?)岗"
    rf"|转岗(?:去|到)?(?:做|当)(?P<o>[{_CJK}A-Za-z]{{2,8}}?)(?:了|，|,|。|$)"
    # A team led ("自从带了这个5个人的前端小组", "开始带团队了").
    rf"|(?:自从|开始|已经|现在|目前)(?P<n>带了?(?:这个|一个)?(?:[\d一二两三四五六七八九十]+个人的)?"
    rf"[{_CJK}A-Za-z]{{0,4}}(?:小组|团队|组|项目组))"
)
_ROLE_MEMORY = re.compile(
    rf"\b(?:is|works as) (?:an? |the )(?P<r>(?:[\w-]+ ){{0,3}}(?:{_ROLE_WORDS}))\b"
    rf"|(?:用户)?(?:是|做)(?:一[名个位])?(?P<q>[{_CJK}A-Za-z]{{0,8}}(?:工程师|程序员|设计师|"
    rf"老师|医生|护士|产品经理|研究员|分析师|架构师|律师|会计|主管|经理|总监|组长|实习生))",
    re.I,
)
# Who the user reports to.
_MANAGER_EN = re.compile(
    rf"\b(?:report(?:ing)? to|new (?:manager|boss|lead) is|my (?:manager|boss|lead) is now)"
    rf" (?P<a>{_NAME})(?= now|,|\.|!|$| instead| since| after)"
    # "my new boss Aisha actually reads the docs": the name, then what is said of them.
    rf"|\bmy new (?:manager|boss|lead|team lead|supervisor),? (?P<b>(?-i:[A-Z][a-z]+(?: [A-Z][a-z]+)?))"
    r"(?=\s+[a-z]|'s\b|,|\.|!|$)",
    re.I,
)

# A birthday: one day a year, so another day said as the user's is a correction ("it's May 13
# not May 3", "我生日是3月18号"). Said as the day it is, not as a day coming up.
_MONTH_EN = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DAY_EN = (
    rf"(?:{_MONTH_EN} \d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)? (?:of )?{_MONTH_EN})"
)
_DAY_ZH = r"(?:\d{1,2}|[一二三四五六七八九十]{1,3})月(?:\d{1,2}|[一二三四五六七八九十]{1,3})[日号]?"
_BIRTHDAY_SAID = re.compile(
    rf"\b(?:my |the user's )?(?:birthday|bday|b-day)(?: is|'s| falls)(?: actually| really| on)* "
    rf"(?P<a>{_DAY_EN})\b"
    rf"|\b(?:i was|i'm|i am) born (?:on )?(?P<b>{_DAY_EN})\b"
    # "you have my birthday wrong, it's May 13": the day said back to the word.
    rf"|\bmy (?:birthday|bday)\b[^.!?]{{0,30}}?\b(?:it's|it is)(?: actually| really)?(?: on)? "
    rf"(?P<c>{_DAY_EN})\b"
    rf"|(?:^|[我的，,])生日(?:其实|应该)?(?:是|在)(?P<z>{_DAY_ZH})",
    re.I,
)
_BIRTHDAY_MEMORY = re.compile(
    rf"\b(?:birthday|born)(?: is| was)?(?: on)? (?P<a>{_DAY_EN})\b|生日(?:是|在)(?P<z>{_DAY_ZH})",
    re.I,
)


def _day_of_year(value: str) -> tuple[str, ...]:
    """A birthday as its month and day, however written ("May 13th", "13 May", "3月18号")."""
    lowered = value.casefold()
    month = re.search(r"[a-z]{3}", lowered)
    numbers = re.findall(r"\d+", lowered)
    return ((month.group(0),) if month else ()) + tuple(str(int(n)) for n in numbers)


# A memory's value of each slot.
_HOME_MEMORY = re.compile(
    rf"\b(?:lives?|living|is based|based|resides|rents? (?:an? |the )?\w+|owns? (?:an? |the )?\w+|"
    rf"home is) in (?P<a>{_NAME})"
    # "is based out of Denver", "'s home is Denver", "calls Denver home".
    rf"|\bbased out of (?P<b>{_NAME})|\bhome (?:town |city )?is (?P<c>{_NAME})"
    rf"|\bcalls (?P<d>{_NAME}) home\b"
    rf"|(?:住在|家在|家住|现居|定居在?|常驻|居住在)(?P<z>[{_CJK}]{{2,6}})"
    rf"|(?:^用户|^用户现在|^用户目前)在(?P<y>[{_CJK}]{{2,4}}?)(?:生活|定居|安家)",
    re.I,
)
_EMPLOYER_MEMORY = re.compile(
    rf"\b(?:works?|working|is employed|employed) (?:at|for|by) (?P<a>{_NAME})"
    # "'s employer is Stripe", "has a job at Stripe", "就职于字节跳动".
    rf"|\b(?:employer|company|workplace) is (?P<d>{_NAME})|\b(?:job|position|role) (?:at|with) (?P<e>{_NAME})"
    rf"|(?:就职于|任职于|供职于)(?P<y>[{_CJK}A-Za-z]{{2,10}})"
    rf"|\bis (?:an? )?(?:[\w-]+ ){{0,3}}at (?P<b>{_NAME})$"
    rf"|\bworks? as (?:an? )?(?:[\w-]+ ){{1,3}}(?:at|for) (?P<c>(?:an? |the )?[\w&' -]{{3,40}}?)(?:[.,;]|$)"
    rf"|在(?P<z>[{_CJK}A-Za-z ]{{2,10}}?)(?:工作|上班|任职|做)",
    re.I,
)
_NAME_MEMORY = re.compile(rf"\bname is (?P<a>{_NAME})|用户叫(?P<z>[{_CJK}]{{2,4}})", re.I)
_MANAGER_MEMORY = re.compile(
    rf"\b(?:manager|boss|lead) is (?P<a>{_NAME})|\breports to (?P<b>{_NAME})", re.I
)


# A value said as the user's state, which is a new one only with a word of the present
# ("these days I'm in Denver", "home is Oakland now", "I now work remotely for Acme", "I'm
# a staff engineer now"): said plainly, it may be a visit ("I'm in Denver for a conference").
_NOW = re.compile(
    r"\b(?:now|these days|nowadays|currently|since|finally|officially|full[- ]time|for good|"
    r"anymore|any more|no longer)\b|现在|目前|如今",
    re.I,
)
_VISIT = re.compile(
    r"\b(?:for (?:a|the|two|three|\d+) (?:week|weekend|conference|trip|few|couple|days?|night|"
    r"month)s?|visiting|trip|holiday|vacation|this week|this weekend|until|till|layover|"
    r"conference|offsite|on business|for work)\b|出差|旅游|旅行|玩",
    re.I,
)
_STATE_EN = [
    (
        "home",
        re.compile(
            rf"\b(?:(?:i'm|i am|we're|we are) (?:now |currently |finally |officially |back )?"
            rf"(?:living |based |settled |out |over |down |up )?in|home is(?: now)?(?: in)?|"
            rf"(?:signed|got|found) (?:a |the |our |my )?(?:new )?(?:lease|place|flat|apartment|"
            rf"house)(?: on (?:a |an )?\w+)? in|(?:i|we) (?:now )?(?:live|rent|own) (?:\w+ )?in)"
            rf" (?P<a>{_NAME})",
            re.I,
        ),
    ),
    (
        "employer",
        re.compile(
            rf"\b(?:(?:i'm|i am) (?:now |currently )?(?:[\w-]+ ){{0,2}}?(?:at|with|working (?:at|for))|"
            rf"(?:i )?(?:now |currently )?work(?:ing)? (?:\w+ )?(?:at|for))"
            rf" (?P<a>{_NAME})",
            re.I,
        ),
    ),
    (
        "name",
        re.compile(
            rf"\b(?:it's|it is|i'm|i am|my name is|name's|call me|i go by) (?P<a>{_NAME}(?: {_NAME})?)"
            rf"(?= now\b)",
            re.I,
        ),
    ),
    (
        "role",
        re.compile(
            rf"\b(?:(?:i'm|i am) (?:now |officially |finally )*|"
            rf"(?:i )?(?:work|working|doing (?:\w+ )?work) as )(?:an? |the )"
            rf"(?P<r>(?:[\w-]+ ){{0,3}}(?:{_ROLE_WORDS}))\b",
            re.I,
        ),
    ),
]


# A role said with its promotion ("promo came through!! staff engineer as of this month").
_PROMOTED = re.compile(
    r"\b(?:promo|promoted|promotion|as of|officially|new title|title is)\b", re.I
)
_ROLE_ANY = re.compile(
    rf"\b(?P<r>(?:(?!(?:to|as|an?|the|of|for|from|be|been|got|is|was|my|our)\b)[\w-]+ ){{0,2}}"
    rf"(?:{_ROLE_WORDS}))\b",
    re.I,
)
# A home typed in lower case after the words of a move ("now that I'm in singapore", "moved
# to leeds"), unless the word is a common one ("I'm in bed", "moved to the suburbs").
_HOME_LOWER = re.compile(
    r"\b(?:now that (?:i'm|we're|i am|we are) (?:living |based )?in|(?:i|we)(?:'ve| have)? "
    r"(?:just |finally )?(?:moved|relocated) to|(?:i|we) (?:now )?live in|"
    r"(?:my|our) (?:new )?(?:place|flat|apartment|house|condo) (?:here )?in)"
    r" (?P<l>(?-i:[a-z]{4,}))\b(?! (?:of|for|with)\b)",
    re.I,
)
_NOT_PLACES = frozenset(
    [
        "town",
        "bed",
        "work",
        "school",
        "class",
        "traffic",
        "trouble",
        "line",
        "hospital",
        "love",
        "charge",
        "pain",
        "office",
        "home",
        "meetings",
        "meeting",
        "there",
        "here",
        "this",
        "that",
        "these",
        "those",
        "the_suburbs",
        "suburbs",
        "city",
        "country",
        "countryside",
        "village",
        "flat",
        "apartment",
        "house",
        "place",
        "state",
        "area",
        "part",
        "charge",
        "control",
        "tears",
        "shock",
        "therapy",
        "recovery",
        "london",
    ]
)


# A home or a workplace said as the user's before ("back when I was at Stripe", "in my
# Shopify days", "my old job at Acme", "之前在阿里的时候", "以前住上海那会儿"): the user's no
# longer, though nothing says what came after. Only in words that say a time now over: "when
# I was at Starbucks this morning" is a visit.
# The value named whole: not a part of it ("Stripe's Dublin office", "Berlin-Mitte", "Stripe
# on the payments team" is whole, "Stripe's first hackathon" is not).
_WHOLE = r"(?![\w'’-]|\s+(?:office|team|campus|hq|headquarters|branch|district|days so far))"
_PAST_EN = re.compile(
    rf"\b(?:back when|back in the days? when|in the days when) (?:i|we) (?:still )?"
    rf"(?:worked (?:at|for)|was working (?:at|for)|were working (?:at|for)|was (?:at|with)|"
    rf"were (?:at|with)) (?P<a>{_NAME}){_WHOLE}"
    rf"|\bback when (?:i|we) (?:still )?(?:lived|was living|were living) in (?P<home_c>{_NAME}){_WHOLE}"
    rf"|\b(?:in|from) my (?P<d>{_NAME}) (?:days|years|era)\b(?! so far)"
    rf"|\b(?:i|we) used to work (?:at|for) (?P<f>{_NAME}){_WHOLE}"
    rf"|\b(?:i|we) used to live in (?P<home_f>{_NAME}){_WHOLE}"
    rf"|\bmy (?:old|former|previous) (?:job|company|employer|workplace) (?:at|with) (?P<g>{_NAME}){_WHOLE}",
    re.I,
)
# Still there after all ("in my Berlin days… still here", "现在还在阿里").
_STILL = re.compile(
    r"\b(?:still (?:here|there|at|in|with|work)|now i'm at|i'm back at)\b|还在|仍在|依然在|转正",
    re.I,
)
_PAST_ZH = re.compile(
    rf"(?:之前|以前|原来|原先|当年)(?:我)?在(?P<z>[{_CJK}A-Za-z]{{2,4}}?)(?:工作|上班)?"
    rf"(?:的时候|那会儿?|那阵子|那几年|那时候)"
    rf"|(?:之前|以前|原来|原先|当年)(?:我)?住(?:在)?(?P<y>[{_CJK}]{{2,4}}?)(?:的时候|那会儿?|那阵子|那几年|那时候)",
)
# What a place is not, said before 的时候: a task, a stint, a visit ("在阿里开会的时候",
# "在阿里实习的时候").
_NOT_A_PLACE = re.compile(r"开会|实习|出差|培训|面试|读书|上学|玩|旅游|吃饭|加班|值班")


def past_values(said: str) -> list[NewValue]:
    """The homes and workplaces ``said`` names as the user's before (see ``_PAST_EN``)."""
    found: list[NewValue] = []
    if _STILL.search(said):
        return found
    for match in _PAST_EN.finditer(said):
        sentence = re.split(r"(?<=[.!?;])\s", said[: match.start()])[-1]
        rest = re.split(r"(?<=[.!?;])\s", said[match.start() :])[0]
        if _SOMEONE_ELSE.search(sentence[-30:]) or _CONDITION.search(sentence + rest):
            continue
        name = _name(_group(match))
        if name and not re.search(r"['’]s\b|-", name):  # "Stripe's", "Berlin-Mitte": a part of one
            slot = "home" if (match.lastgroup or "").startswith("home") else "employer"
            found.append(NewValue(slot, name, "fact", past=True))
    for match in _PAST_ZH.finditer(said):
        before = said[max(0, match.start() - 8) : match.start()]
        clause = re.split(r"[。！？；]", said[match.start() :])[0]
        if _SOMEONE_ELSE.search(before) or _CONDITION.search(clause):
            continue
        if match.group("z"):
            value = _zh_name(match.group("z"))
            if _NOT_A_PLACE.search(value):
                continue
            if not re.match(r"^(?:家|公司|单位|学校|这|那|国外|外地|老家)", value):
                found.append(NewValue("employer", value, "fact", past=True))
        else:
            place = _zh_place(match.group("y"))
            if place and not _ZH_STAY.search(place):
                found.append(NewValue("home", place, "fact", past=True))
    return found


_NAMED_SLOTS = {
    False: [
        ("home", _HOME_EN),
        ("employer", _EMPLOYER_EN),
        ("manager", _MANAGER_EN),
        ("role", _ROLE_EN),
    ],
    True: [("home", _HOME_ZH), ("employer", _EMPLOYER_ZH), ("role", _ROLE_ZH)],
}


_LED = re.compile(r"^带了?(?:这个|一个)?(?:[\d一二两三四五六七八九十]+个人的)?")


def _group(match: re.Match[str]) -> str:
    return next(v for v in match.groups() if v)


def _name(value: str) -> str | None:
    value = value.strip().rstrip(".,;:!?'")
    if not value or value.split()[0].casefold() in _NOT_NAMES:
        return None
    return value


def _zh_name(value: str) -> str:
    """A Chinese name cut where its words end ("字节第三周" -> "字节")."""
    return value[:2] + re.sub(r"[第的后前里那这].*$", "", value[2:])


def _zh_place(value: str) -> str | None:
    # The first two characters are the name's ("成都", "三亚"); a stop word after them ends it.
    value = value[:2] + _HOME_ZH_STOP.sub("", value[2:])
    return value if len(value) >= 2 else None


# A condition anywhere in a sentence makes all of it hypothetical ("if the offer comes
# through, we'd move to Leeds").
_CONDITION = re.compile(
    r"\b(?:if|unless|whether|would|we'd|i'd|(?<!i )suppose|supposing|imagine(?! my surprise)|hypothetically|"
    r"let's say|say i|in a parallel universe|i dreamt|i dreamed|role-?play)\b"
    r"|如果|假如|要是|万一|的话|假设|梦见|梦到",
    re.I,
)
# A question tacked on after a statement ("got the keys to our place in Leeds 🔑 what do I
# need to sort first?"): the statement before it stands.
_TRAILING_QUESTION = re.compile(
    r"(?:^|[\s.!;:)]|[^\w\s,])\s*(?:what|how|why|where|which|who|any|anything|can|could|should|do|"
    r"does|is|are)\b[^.!]*\?\s*$",
    re.I,
)
_QUESTION_ZH = re.compile(r"(?:有啥|有没有|怎么|咋|什么|啥|吗|呢|哪)")


_ZH_VISIT = re.compile(
    r"出差|旅游|旅行|度假|路过|参加|访问|(?:去|到|来)[^，,。！？]{0,8}(?:开会|参观|拜访|面试|培训|玩|交流|出差|开会)"
    r"|玩了|玩几天|待几天|呆几天"
)
_CLAUSE_END = re.compile(rf"(?<=[{_CJK}\U0001F300-\U0001FAFF\u2600-\u27BF])\s+(?=[{_CJK}])")


def _statement_part(clause: str) -> str:
    """The clause without a question it ends on; empty when it is all question."""
    clause = clause.strip()
    if CJK_RE.search(clause):
        if not (clause.endswith(("?", "？")) or _QUESTION_ZH.search(clause)):
            return clause
        # In a chat a space (or an emoji and a space) often ends a sentence: "新入手的 Mate 70
        # 拍月亮是真的猛🌕 有没有什么技巧" is a statement, then the question.
        kept = []
        for part in re.split(_CLAUSE_END, clause):
            if part.endswith(("?", "？")) or _QUESTION_ZH.search(part):
                break
            kept.append(part)
        return " ".join(kept)
    if not clause.endswith("?"):
        return clause
    match = _TRAILING_QUESTION.search(clause)
    if match is None or match.start() < 10:
        return ""
    return clause[: match.start()]


def _others(before: str) -> bool:
    """True when the words before a value make it someone else's ("my mom got a Pixel", "my
    sister's company moved to Teams"), not the user's too ("my coworker got me onto Zed")."""
    someone = _SOMEONE_ELSE.search(before)
    if someone is None:
        return False
    return not re.search(r"\b(?:me|i|we|us|my)\b|我", before[someone.end() :], re.I)


def _stated(said: str) -> bool:
    """True when ``said`` states rather than plans, wishes or asks."""
    return not _NOT_NOW.search(said)


def _tools_in(text: str) -> Iterable[tuple[str, Category, str, re.Match[str]]]:
    for slot, category, names in _TOOL_RES:
        for name, pattern in names.items():
            for match in pattern.finditer(text):
                yield slot, category, name, match


# A new workplace or home named after a comma ("my new employer, Datadog, pays for ...",
# "our new flat, in Leeds, ..."): the name belongs to the clause before it.
_APPOSITIVE = re.compile(
    r"\b((?:new|current) (?:employer|company|workplace|firm|job|place|flat|apartment|house|home|"
    r"city)),\s+(?=(?:in |at |with )?(?-i:[A-Z]))",
    re.I,
)


def new_values(said: str) -> list[NewValue]:
    """The single-valued facts ``said`` gives a new value, as the user's now."""
    found: list[NewValue] = []
    chinese = bool(CJK_RE.search(said))
    # A question or a plan in the same clause leaves the value open; each clause is read alone
    # ("what's good in Leeds? we just moved there" holds one statement).
    # A condition in what is stated (not in a question asked after it: "first paycheck from
    # Shopify just landed 🙌 how do i figure out whether...?") makes all of it hypothetical.
    stated = " ".join(
        _statement_part(c) for c in re.split(r"(?<=[.!?。！？；;])\s*|[，,]\s*", said) if c
    )
    if _CONDITION.search(stated):
        return []
    said = _APPOSITIVE.sub(r"\1 ", said)
    # A birthday is read in the whole sentence: the day may come after a comma ("you have my
    # birthday wrong, it's May 13").
    for match in _BIRTHDAY_SAID.finditer(said):
        before = re.split(r"[.!?。！？；;，,]", said[: match.start()])[-1]
        if not _SOMEONE_ELSE.search(before) and not _NOT_NOW.search(said[match.start() :]):
            found.append(NewValue("birthday", _group(match).strip(), "fact"))
    clauses = [_statement_part(c) for c in re.split(r"(?<=[.!?。！？；;])\s*|[，,]\s*", said) if c]
    for clause in clauses:
        if not clause or not _stated(clause):
            continue
        for slot, pattern in _NAMED_SLOTS[chinese]:
            for match in pattern.finditer(clause):
                # "my sister moved to Paris": the move is someone else's.
                if _SOMEONE_ELSE.search(clause[: match.start()]):
                    continue
                # A place said as here, or by its commute, on a visit ("今天去腾讯开会，腾讯这边
                # 的同事很热情", "出差到上海，上海这边的天气太冷"): the user is passing through.
                if (match.lastgroup or "").startswith("here_") and (
                    _ZH_VISIT.search(said)
                    or _VISIT.search(said)
                    or _SOMEONE_ELSE.search(said[: max(0, said.find(clause))])
                ):
                    continue
                value = _group(match).strip()
                if chinese and slot == "role" and value.startswith("带"):
                    # A team led: "带了这个5个人的前端小组" -> "带前端小组".
                    found.append(NewValue(slot, re.sub(_LED, "带", value), "fact"))
                    continue
                if chinese:
                    value = (_zh_place(value) if slot == "home" else _zh_name(value)) or ""
                    if slot == "home" and _ZH_STAY.search(value):
                        continue
                    # A time or a post is no place ("两天", "周末", "入职"); a name may
                    # begin with such a word ("天津", "周口").
                    if re.match(r"^(?:家|公司|单位|这|那|上班|外地)", value) or re.search(
                        r"[年月周天职岗了]", value[1:]
                    ):
                        continue
                    if re.match(
                        r"^(?:周[末日六一二三四五边围]|[每今明后昨前当]天|天天|天[亮黑台一]|年[底初]|月[底初])",
                        value,
                    ):
                        continue
                    # What follows 入职 may be no workplace at all: "入职要用", "入职前要体检",
                    # "入职手续办完了".
                    if slot == "employer" and re.match(
                        r"^(?:要|得|需|前|后|时|的|会|新来|刚来|手续|材料|流程|体检|培训|资料)",
                        value,
                    ):
                        continue
                    if value:
                        found.append(NewValue(slot, value, "fact"))
                else:
                    # A role is written in lower case ("team lead"); a place or a company is a
                    # name.
                    name = value.strip() if slot == "role" else _name(value)
                    if name:
                        found.append(NewValue(slot, name, "fact"))
        if not chinese and _NOW.search(clause) and not _VISIT.search(clause):
            for slot, pattern in _STATE_EN:
                for match in pattern.finditer(clause):
                    if _SOMEONE_ELSE.search(clause[: match.start()]):
                        continue
                    value = _group(match).strip()
                    name = value if slot == "role" else _name(value)
                    if name:
                        found.append(NewValue(slot, name, "fact"))
        if not chinese and _PROMOTED.search(clause):
            for match in _ROLE_ANY.finditer(clause):
                if not _SOMEONE_ELSE.search(clause[: match.start()]):
                    found.append(NewValue("role", match.group("r").strip(), "fact"))
        if not chinese:
            for match in _HOME_LOWER.finditer(clause):
                place = match.group("l")
                if place.casefold() not in _NOT_PLACES and not _SOMEONE_ELSE.search(
                    clause[: match.start()]
                ):
                    found.append(NewValue("home", place.capitalize(), "fact"))
        named: dict[str, list[NewValue]] = {}
        for slot, category, name, match in _tools_in(clause):
            before, after = clause[: match.start()], clause[match.end() :]
            if (
                _LEFT_TOOL.search(before)
                or _BEFORE_TOOL.search(before)
                or _LEARNING.search(before)
                or _others(before)
                or _LEFT_TOOL_AFTER.search(after)
            ):
                continue
            # "my new Pixel": new says it is the one in use, and so does the user's own setup
            # of it ("my Neovim config"); otherwise a word of a switch.
            if (
                _NOW_TOOL.search(clause)
                or re.search(
                    r"\bnew\s+$|\b(?:got|bought|picked up|ordered|received)\s+(?:myself\s+)?"
                    r"(?:a|an)\s+$",
                    before,
                    re.I,
                )
                or (re.search(r"\b(?:my|our)\s+$", before, re.I) and _SETUP.match(after))
            ):
                named.setdefault(slot, [])
                if all(v.value != name for v in named[slot]):
                    said_as = match.group(0)
                    # A model's number kept as said ("Mate 70"), a Chinese name too.
                    words = (
                        said_as
                        if CJK_RE.search(said_as) or slot == "car" or re.search(r"\d", said_as)
                        else ""
                    )
                    named[slot].append(NewValue(slot, name, category, words))
        # Two values of one slot left standing ("Postgres for the new service, Mongo lost"):
        # which one is the user's now is not said.
        for slot, values in named.items():
            if len(values) > 1:
                # "migrated everything to 1password after the lastpass mess": the one the
                # switch goes to is the new one.
                to = [v for v in values if _SWITCHED_TO(clause, v)]
                named[slot] = to if len(to) == 1 else values
        single = {slot: values[0] for slot, values in named.items() if len(values) == 1}
        # One word of a switch says one thing changed ("转到 vscode 了，但是 python 的解释器
        # 选不对" changes the editor, not the language): the value nearest to it.
        cue = _NOW_TOOL.search(clause)
        if len(single) > 1 and cue is not None:
            near = min(single.values(), key=lambda v: _distance(clause, v, cue.start()))
            single = {near.slot: near}
        found += single.values()
    unique: dict[tuple[str, str], NewValue] = {}
    for new in found:
        unique.setdefault((new.slot, new.value.casefold()), new)
    return list(unique.values())


def _distance(clause: str, value: NewValue, at: int) -> int:
    """How far from ``at`` the clause names ``value``."""
    return min(
        (
            abs(match.start() - at)
            for slot, _, name, match in _tools_in(clause)
            if slot == value.slot and name == value.value
        ),
        default=len(clause),
    )


def _SWITCHED_TO(clause: str, value: NewValue) -> bool:
    """True when ``clause`` names ``value`` as what a switch went to."""
    words = re.escape(value.words or value.value)
    for slot, _, name, match in _tools_in(clause):
        if slot == value.slot and name == value.value:
            words = re.escape(match.group(0))
            break
    return bool(
        re.search(
            rf"\b(?:switched|moved|moving|migrated|migrating|changed|went|jumped|converted|over)\b"
            rf"[^,.;]{{0,25}}\b(?:to|onto|into)\s+(?:\w+\s+)?{words}"
            # "把印象笔记里的东西全导进 Obsidian 了": the one the things went into.
            rf"|(?:导进|导入|导到|迁到|迁移到|迁进|换成|换到|转到|改用|搬到|搬进)(?:了|去|来)?\s*{words}",
            clause,
            re.I,
        )
    )


def slot_values(content: str) -> list[tuple[str, str]]:
    """The single-valued facts a memory holds, as (slot, value)."""
    found: list[tuple[str, str]] = []
    for slot, pattern in (
        ("home", _HOME_MEMORY),
        ("employer", _EMPLOYER_MEMORY),
        ("manager", _MANAGER_MEMORY),
        ("role", _ROLE_MEMORY),
        ("name", _NAME_MEMORY),
        ("birthday", _BIRTHDAY_MEMORY),
    ):
        for match in pattern.finditer(content):
            value = _group(match).strip().rstrip("。.，,")
            if match.groupdict().get("z"):
                value = _zh_place(value) or value if slot == "home" else value
            if value:
                found.append((slot, value))
    for slot, _, name, _ in _tools_in(content):
        found.append((slot, name))
    return found


def _same(old: str, new: str, slot: str = "") -> bool:
    """True when two values of a slot name the same thing ("上海浦东" and "上海", "Stripe" and
    "Stripe Inc")."""
    a, b = old.casefold().strip(), new.casefold().strip()
    if not a or not b:
        return False
    if slot == "name":
        return a == b or a in b.split() or b in a.split()
    if slot == "birthday":
        return _day_of_year(a) == _day_of_year(b)
    if a in b or b in a:
        return True
    if CJK_RE.search(a) and CJK_RE.search(b):
        return a[:2] == b[:2]
    return a.split()[0] == b.split()[0]


# A change said not to have happened, or to be someone else's ("people think I left Stripe
# but I didn't", "我没有搬到上海，还在杭州", "不是我搬到上海了，是我弟弟").
_DENIED = re.compile(
    # "…but I didn't." at the end: the change said is denied ("…but I haven't unpacked yet"
    # only adds to it).
    r"\bbut (?:i|we) (?:didn't|did not|haven't|have not|never)(?: actually| really)?\s*[.!]?\s*$"
    r"|\b(?:i|we) (?:didn't|did not|never) (?:actually |really )(?:move|leave|quit|switch|join)\b"
    r"|\b(?:it wasn't me|it was not me)\b"
    # "我没有搬到上海，还在杭州": said first, of the user.
    r"|(?:^|[，,。！？；\s])我(?:并|其实|根本)?(?:没有|没)(?:真的?)?(?:搬到|搬去|离职|辞职|跳槽|入职|结婚)"
    # "不是我搬到上海了，是我弟弟": another person's.
    r"|不是我[^，,。！？]{0,12}[，,]\s*是(?:我)?(?:弟弟?|妹妹?|哥哥?|姐姐?|朋友|同事|老公|老婆|爸|妈|室友|"
    r"邻居|同学|他|她|表[哥姐弟妹]|堂[哥姐弟妹])",
    re.I,
)


def denied(said: str) -> bool:
    """True when ``said`` says a change did not happen, or was someone else's."""
    return _DENIED.search(said) is not None


def _named_as_still(lowered: str, old: str) -> bool:
    """True when the sentence ``lowered`` (in lower case) names the old value ``old`` other than
    as the one left ("my job is still in Dallas", "I told my Dallas friends")."""
    return old.casefold() in lowered and not re.search(
        # "the old Queens place", "my former employer Shopify": named as the one before.
        rf"(?:from|left|quit|off|instead of|after (?:\w+ ){{0,3}}of|从|离开|离职"
        rf"|\b(?:old|former|previous|ex-)(?:\s*[a-z]+)?)\s*{re.escape(old.casefold())}"
        # "网易那边已经交接完了", "Priya left last week": the old one named before the words
        # of leaving.
        rf"|{re.escape(old.casefold())}[^，,。]{{0,6}}(?:交接完|离职|辞职|不干了|走人)"
        rf"|{re.escape(old.casefold())}(?:['’]s| has| had| just| finally)*\s+(?:left|quit|retired|"
        rf"resigned|moved on|gone|went on leave|was let go|got (?:fired|laid off|promoted))\b",
        lowered,
    )


def still_named(said: str, content: str) -> bool:
    """True when ``said`` names the home, workplace, manager, role or name a known memory
    (``content``) holds as still so: a change said beside it does not replace that memory."""
    lowered = said.casefold()
    return any(
        slot in ("home", "employer", "manager", "role", "name") and _named_as_still(lowered, old)
        for slot, old in slot_values(content)
    )


def replaced_by(said: str, known: Sequence[tuple[str, str]]) -> tuple[list[NewValue], list[str]]:
    """The new values ``said`` gives, and the ids of known memories holding another value of
    the same slot (only memories in the sentence's language for a place or an employer: a
    Chinese name is not compared with an English one)."""
    if denied(said):
        return [], []
    values = new_values(said)
    ids: list[str] = []
    pasts = [
        p
        for p in past_values(said)
        if not any(v.slot == p.slot and _same(p.value, v.value, p.slot) for v in values)
    ]
    if pasts:
        # A value of before retires the memory that holds it as the user's now: only that
        # one (a memory of another value may be the one after it).
        chinese = bool(CJK_RE.search(said))
        kept: list[NewValue] = []
        for past in pasts:
            holding = [
                entry_id
                for entry_id, content in known
                if bool(CJK_RE.search(content)) == chinese
                and not re.search(r"\bused to\b|以前|之前|曾经", content, re.I)
                and any(
                    slot == past.slot and _same(old, past.value, slot)
                    for slot, old in slot_values(content)
                )
            ]
            if holding:
                ids += holding
                kept.append(past)
        values = values + kept
    if not values:
        return values, ids
    chinese = bool(CJK_RE.search(said))
    lowered = said.casefold()
    for entry_id, content in known:
        held = slot_values(content)
        for new in values:
            if new.past:
                continue
            olds = [v for slot, v in held if slot == new.slot]
            if not olds or any(_same(old, new.value, new.slot) for old in olds):
                continue
            if new.slot in ("home", "employer", "manager", "role", "name"):
                if bool(CJK_RE.search(content)) != chinese:
                    continue
                # The old value named as still so ("we moved to Leeds, my job is still in
                # York") is left alone unless the sentence says it was left.
                if any(_named_as_still(lowered, old) for old in olds):
                    continue
            ids.append(entry_id)
            break
    return values, list(dict.fromkeys(ids))
