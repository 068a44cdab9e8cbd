"""Secrets found by what stands around them: key blocks, credentials in URLs and headers,
values after a label in prose, config files and environment lines, and card numbers.

A label rule keeps the label and replaces only the value (its group ``secret``). The value
after "password" may be short; the value after a weaker label (key, token, secret) must look
generated (see :mod:`.checks`), so that "the secret is patience" stays as it is.
"""

from __future__ import annotations

import re
from itertools import pairwise

from .checks import (
    basic_credentials,
    card_number,
    generated,
    iban,
    names_data,
    password_value,
    token_value,
)
from .rule import Rule, field

__all__ = ["FIELDS", "LONGEST", "PRIVATE_KEYS", "VALUE_GOES_ON"]

PRIVATE_KEYS: tuple[Rule, ...] = (
    field(
        "private-key",
        "-----begin",
        r"(?P<secret>-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z))",
        lambda m: True,
    ),
    # A key block's body without its BEGIN line: base64 lines (and an armor checksum, "=Xk9P")
    # that end at a private key's END line. A blank line in the armor (after "Comment: ...")
    # splits a hand-typed block in two, and the body may then be read apart from its header.
    field(
        "private-key",
        "-----end",
        # Tried at the first line of a run only (not again from each line within it).
        r"(?m)^(?<![A-Za-z0-9+/=]\n)(?<![A-Za-z0-9+/=]\r\n)"
        r"(?P<secret>[A-Za-z0-9+/]{16,}={0,2}(?:[ \t]*\r?\n[A-Za-z0-9+/]{4,}={0,2})*"
        r"(?:[ \t]*\r?\n=[A-Za-z0-9+/]{4})?)[ \t]*\r?\n[ \t]*"
        r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
        lambda m: True,
    ),
    field(
        "private-key",
        "putty-user-key-file",
        r"(?P<secret>PuTTY-User-Key-File-\d: [\s\S]*?(?:Private-MAC: [0-9a-f]+|\Z))",
        lambda m: True,
    ),
)

# Where a value ends: a space, a quote, CJK text or its punctuation, a separator; "&" only
# when a next query parameter follows (a password may hold "&").
_STOP = "\\s\"'`”’，。,;；、！？）】\u3000-\u303f\u3400-\u9fff\uff00-\uffef"
_END = rf"(?=[.!?:)\]}}>]*(?:[{_STOP}]|&[A-Za-z_]\w*=|$))"
# The value itself: not a placeholder opening ($X, <x>, {{x}}, [redacted...], ****).
# Between quotes, a value may hold spaces ("Lark 83 Tundra"); the quotes stay. A value is read
# for LONGEST characters at most, then taken whole when it goes on (an AWS session token is
# 800 or more; redaction takes the rest of it, see VALUE_GOES_ON): read on to its end before a
# check, each label in a long run of them ("key=key=...") read the whole run, and a text of
# 100 KB took minutes.
LONGEST = 512
_CHAR = r"(?:[^{_STOP}&]|&(?![A-Za-z_]\w*=))".replace("{_STOP}", _STOP)
# A placeholder's opening, or a mask ("****"); "*eBo0El..." is a value.
_NOT_A_MASK = r"(?![$<{\[(%•]|\*(?![A-Za-z0-9]))"
_VALUE = (
    rf"(?P<secret>(?<=[\"“'‘]){_NOT_A_MASK}[^\"”'’\n]{{4,64}}?(?=[\"”'’])"
    rf"|{_NOT_A_MASK}(?:{_CHAR}{{1,{LONGEST - 1}}}?{_END}|{_CHAR}{{{LONGEST}}}))"
)
#: The rest of a value read for LONGEST characters: taken with it when it is redacted.
VALUE_GOES_ON = re.compile(rf"{_CHAR}*?{_END}")
# A label begins a word, or a part of a camelCase name (apiKey, authToken, dbPassword).
# A label begins a word, or a part of a camelCase name (apiKey, authToken, dbPassword), or
# ends an upper-case name (PGPASSWORD, VAULTTOKEN); a Chinese label stands anywhere
# ("wifi密码").
_START = (
    r"(?:(?<![A-Za-z0-9])|(?-i:(?<=[a-z0-9])(?=[A-Z]))"
    r"|(?-i:(?<=[A-Z0-9])(?=(?:PASSWORD|PASSWD|PASSPHRASE|PWD|SECRET|TOKEN)\b))"
    # A password joined to what it opens, in lower case ("dbpassword", "smtppass").
    r"|(?<=db)(?=pass)|(?<=root)(?=pass)|(?<=admin)(?=pass)|(?<=smtp)(?=pass)|(?<=mail)(?=pass)"
    r"|(?=[\u3400-\u9fff]))"
)
# ("wifi pass is X": "pass" alone is a bus's or a boarding pass, named by what it opens.)
_STRONG = (
    r"pass(?:word|wd|phrase)|pwd|pw|密码|口令"
    r"|(?:wi-?fi|wlan|network|router|login|account|e-?mail|laptop|computer|phone)\s+pass(?![\w-])"
)
# What else opens a door or an account: a code, a combination, a key that unlocks a vault or a
# disk, the answer to a security question. Their values are checked as a password's, and only
# after "is", ":" or the like (never a bare value: "the gate code changed").
# What a code opens, in "the code for the garage door", "the code to the storage unit".
_LOCKED = (
    r"door|gate|alarm|building|safe|lock|padlock|garage|lockbox|keypad|apartment|flat|house|"
    r"office|unit|locker|shed|storage|mailbox|vault|suite|cabinet"
)
# A code or a combination: its value holds a digit ("the gate code is open" holds none).
_CODES = (
    r"combination|combo|"
    r"(?:door|gate|alarm|entry|lock|safe|garage|building|lockbox|keypad|access|unlock|"
    r"security|entrance|locker|padlock|mailbox|disarm|arming|panel)\s+code|"
    rf"(?:code|combination)\s+(?:to|for|of)\s+(?:the\s+|my\s+|our\s+)?(?:[\w'’-]+\s+)?"
    rf"(?:{_LOCKED})(?:\s+(?:door|gate|lock))?(?![\w-])"
)
_OPENS = (
    r"wi-?fi|wlan|pass\s?code|"
    r"(?:unseal|recovery|master|root|vault|encryption|decryption|backup|licen[cs]e|product|"
    r"activation|bitlocker)\s+key|"
    r"security\s+(?:question\s+)?answer|answer\s+to\s+(?:my|the)\s+security\s+question|"
    r"secret\s+answer|memorable\s+(?:word|answer)|"
    r"(?:recovery|backup|2fa|two-factor)\s+codes?|"
    r"security\s+question[^\n]{0,80}?\banswer|"
    r"门禁(?:密码|码)?|密保问题[^，。,\n]{0,20}?答案|密保(?:答案)?|安全问题(?:的)?答案|激活码|序列号|"
    r"开锁码|无线网(?:络)?(?:密码)?|无线密码|门锁|密码锁|智能锁|保险[柜箱](?:的)?(?:数字|密码)?|U盾(?:口令|密码)?"
)
_WEAK = (
    r"apikey|api[_ -]key|private[_ ]key[_ ]id|(?:app|api|client)[_ -]?secret|secret[_ -]?key|"
    r"secret|token|key|pat|credentials?|"
    r"密钥|秘钥|私钥|令牌|凭证|凭据|授权码"
)
_QUOTE = r"[\"'`“‘]?"
# What may stand between a label and its value ("for my mom's laptop"): no end of a clause,
# no quote, but an apostrophe that makes a possessive.
_PHRASE = r"(?:[^.,;:!?\n\"'“]|'(?=s?\s))"
# "password: x", "DB_PASSWORD=x", "password is x", "密码是x", "password for the account is x".
# "the db password's X" joins a value to the label itself only: after a phrase, "'s" makes a
# possessive ("the password for my mom's laptop is X").
# An aside between a label and its value: "the password, since you asked, is X", "the API key,
# the one for the EU org: X", "token 给你：X".
_ASIDE = (
    r"(?:\s*,\s*[^,.;:!?\n\"'“]{1,40}?(?:,(?=\s+(?:is|was)\s)|(?=\s*:))"
    r"|\s*，[^，,。；：:！？\n]{1,20}?(?:，(?=\s*[是为])|(?=\s*[:：]))"
    r"|\s*[\u3400-\u9fff]{1,6}(?=\s*[:：]))"
)
_CONNECTOR = (
    r"(?:['’]s(?:\s+now)?|"
    rf"(?:\s+(?:for|of|on|at|in|about|from|to)\s+{_PHRASE}{{1,40}}?)?"
    r"(?:\s*[（(][^（()）\n]{1,30}[)）])?"
    rf"(?:{_ASIDE})?"
    r"(?:\s+(?:is|was)\s+(?:still\s+|now\s+)?(?:the\s+same(?:\s+as\s+(?:before|ever|last\s+time))?"
    r"|unchanged|as\s+follows|the\s+following|this|below)\s*[:：]"
    r"|[\"'\]]{0,2}\s*(?::=|=>|[:=：])(?:\s*(?:先|就|直接)?(?:按|输入?)(?=\s*[A-Za-z0-9]))?"
    r"|\s+(?:is|was|are)(?:\s+now)?"
    r"|\s+(?:[—–]|-{1,2})|\?|\s*(?:→|->)"
    # "the vault password; it's X", "when it asks for your passcode it's X".
    r"|[;,]?\s+it['’]?s|\s*(?:是|为)\s*[\d一二三四五六七八]\s*位\s*[:：]"
    r"|\s*(?:[，,][^，,。；;:：\n]{0,12}?[，,]?|[^，,。；;:：\n]{1,12}?[，,])?"
    r"\s*(?:我|已经|我已经|都|就|直接|先)?\s*"
    r"(?:(?:后|前)[一二三四五六七八九十\d]位)?(?:[\d一二三四五六七八]\s*位\s*[:：])?"
    r"(?:是|为|改成了?|改为|设成了?|设为|设置为|设置成|换成了?|"
    r"变成了?|填的|填了|填成了?|写的|输入?|按)))"
)


def _labelled(labels: str, bare: bool = True) -> str:
    """A label, how the value is joined to it (or, with ``bare``, only a space), then the
    value: a word, or what stands between quotes (spaces and all)."""
    # (After a Chinese label the value may follow it with no space: "支付密码429955".)
    join = (
        rf"(?:{_CONNECTOR}|(?P<bare>[ \t]+|(?<=[码令])(?=[A-Za-z0-9])))"
        if bare
        else rf"(?:{_CONNECTOR})(?P<bare>(?!))?"
    )
    return rf"(?i){_START}(?:{labels}){join}[ \t]*{_QUOTE}{_VALUE}"


# What a clause ends with once the value is read ("the wifi password is sunshine.").
_CLAUSE_END = re.compile(r"[.!?:)\]}>\"'`”’]*\s*(?:$|[,.;:!?，。；：！？\n])")


_CHINESE_LABEL = re.compile(r"密码|口令")


def _after_password(match: re.Match[str]) -> bool:
    value = match["secret"]
    if match["bare"] is not None:
        # "password hunter2" without "is" or ":": only a value with letters and digits, or,
        # after a Chinese label, any value ("门禁密码 369258#": no sentence goes on that way).
        if _CHINESE_LABEL.search(match.string, match.start(), match.start("bare")):
            after = match.string[match.end() : match.end() + 1]
            cjk = bool(after) and "\u3400" <= after <= "\u9fff"  # "密码 2024年改过": a year
            return not cjk and len(value) >= 4 and password_value(value, False)
        return len(value) >= 6 and any(c.isalpha() for c in value) and password_value(value, False)
    return password_value(value, _CLAUSE_END.match(match.string, match.end()) is not None)


def _after_key(match: re.Match[str]) -> bool:
    before = match.string[max(0, match.start() - 24) : match.start()]
    return token_value(match["secret"]) and not names_data(before)


# Words that describe a passphrase rather than being it ("four random words", "in the vault").
_DESCRIBES_PASSPHRASE = re.compile(
    r"(?i)\b(?:random|words?|long|short|strong|weak|stored|saved|kept|written|same|secret|easy|"
    r"hard|different|unique|generated|characters|letters|digits|numbers|in|on|at|the|a|an|my|"
    r"your|his|her|our|their|from|with|set|changed|reset|expired|wrong)\b"
)


# The password named after a login's name: "pass X", "the password is X", "密码 X".
_NAMED_PASSWORD = r"(?:(?:the\s+|my\s+)?(?:pass(?:word)?|pwd|pw|密码)(?:\s+is|\s*[:：=是为])?\s*)"


def _after_login(match: re.Match[str]) -> bool:
    value = match["secret"]
    return password_value(value, False) or _random_word(value)


def _random_word(value: str) -> bool:
    """True for a single word that reads as typed at random: upper and lower case mixed past
    its first letter ("PRYnnyEUPzmp", not "Paris" or "iPhone")."""
    if not value.isalpha() or len(value) < 8:
        return False
    rest = value[1:]
    changes = sum(1 for a, b in pairwise(rest) if a.isupper() != b.isupper())
    return changes >= 3


def _typed_value(match: re.Match[str]) -> bool:
    value = match["secret"]
    typed = any(c.isdigit() or not c.isalnum() for c in value) or _random_word(value)
    return typed and password_value(value)


# What stands after "maiden name is" when no name does.
_DESCRIBING_NAME = re.compile(
    r"(?i)the|a|an|not|also|unknown|private|secret|hidden|different|same|on|in|at|used|"
    r"required|needed|asked|listed|written|stored|what|which|why|how|common|\w+(?:ed|ing|ly)"
)


# What stands first in a security answer that only describes it ("I put my first pet").
_DESCRIBING_ANSWER = re.compile(
    r"(?i)my|your|his|her|their|our|something|some|nothing|whatever|it|that|this|same"
)


# What a PIN named by what it opens is for: someone's, or a card, a phone, a lock.
_PIN_OPENS = re.compile(
    r"(?i)\b(?:my|our|his|her|their|your|card|debit|credit|bank|atm|phone|sim|account|"
    r"unlock|lock|door|safe|alarm|gate|keypad|wallet|voicemail)"
)


_NEAR_A_CARD = re.compile(r"(?i)amex|american\s+express|card|redacted:card-number")


def _password(match: re.Match[str]) -> bool:
    return password_value(match["secret"])


# What a line of code says about a literal in it: it is a key's or a signature's...
_NAMES_A_SECRET = re.compile(
    r"(?i)secret|key|token|auth|hmac|passw|credential|client|sid|signature|sign|api"
)
# ... or a digest's (a checksum compared, a commit named).
_NAMES_A_HASH = re.compile(r"(?i)sha\d*|md5|hash|checksum|digest|commit|etag|uuid|guid")


def _secret_argument(match: re.Match[str]) -> bool:
    """True for a generated literal passed to a call on a line that names a key, a secret or
    a signature ("Client(sid, \"c329...\")", "hmac.new(b\"2850...\", ...)") and no digest,
    unless it makes an HMAC, whose key it then is."""
    string = match.string
    start = string.rfind("\n", 0, match.start()) + 1
    end = string.find("\n", match.end())
    line = string[start : len(string) if end < 0 else end]
    if not generated(match["secret"]) or not _NAMES_A_SECRET.search(line):
        return False
    return "hmac" in line.lower() or not _NAMES_A_HASH.search(line)


# What a key's label may say that makes it no secret: a public key, a fingerprint, a digest.
_SHARED_KEY = re.compile(r"(?i)public|fingerprint|公钥|指纹|sha\d*$|md5$")
# What a generated value may not hold: a sort key's "#", a time stamp (ORDER#2024-11-01T10:00).
_DATA_VALUE = re.compile(r"#|\d{4}-\d\d-\d\dT\d")


def _far_from_label(match: re.Match[str]) -> bool:
    """True for a value that reads as generated after a key's label further back in the
    clause, unless the label names a public key, a fingerprint or data."""
    before = match.string[max(0, match.start() - 24) : match.start()]
    value = match["secret"]
    return (
        generated(value)
        and token_value(value)
        and not names_data(before)
        and _SHARED_KEY.search((before + match["gap"]).rstrip("\"'` ")) is None
        and _DATA_VALUE.search(value) is None
    )


# A one-time code as it is sent: "verification code is 554514", "the code they texted me is
# 410892", "OTP 8841", "动态验证码为 554514", "验证码 410892".
_ONE_TIME_CODE = (
    r"(?i)(?:(?<![A-Za-z])(?:verification|confirmation|one[- ]?time|log-?in|sign[- ]?in|2fa|mfa|"
    r"otp|sms|auth(?:entication)?|security|access)\s+(?:code|pin|passcode)"
    r"|(?<![A-Za-z])otp(?![A-Za-z])"
    r"|(?<![A-Za-z])code\s+(?:that\s+)?(?:\w+\s+)?(?:just\s+)?"
    r"(?:texted|sent|emailed|messaged)(?:\s+(?:me|us|to\s+me))?"
    r"|验证码|校验码|动态码|动态密码|短信码|确认码)"
    r"(?:\s+(?:is|was|number)|\s*[:：=是为#]|\s*(?=\d{6,8}(?!\d)))\s*"
    r"(?P<secret>\d{4,8})(?!\d|[:.-]\d|\s*[年月日号点分秒])"
)


FIELDS: tuple[Rule, ...] = (
    # A wifi network's QR code text: WIFI:T:WPA;S:name;P:password;; (first: the
    # wifi label's rule would take "T:WPA" for the password)
    field(
        "password",
        "wifi:",
        r"(?i)WIFI:(?:[A-Z]:(?:\\.|[^;\\\n]){0,64};){0,6}?P:(?P<secret>(?:\\.|[^;\\\n]){1,64});",
        lambda m: True,
        short=True,
    ),
    field(
        "basic-auth",
        "basic",
        r"(?i)(?<![A-Za-z0-9])basic\s+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])",
        lambda m: basic_credentials(m["secret"]),
        short=True,
    ),
    # user:password in base64 wherever it stands (a Docker config's "auth", a header).
    field(
        "basic-auth",
        "",
        r"(?<![A-Za-z0-9+/])(?P<secret>[A-Za-z0-9+/]{12,}={0,2})(?![A-Za-z0-9+/=])",
        lambda m: basic_credentials(m["secret"]),
    ),
    # Any scheme after "Authorization:" (token, SSWS, Bot, ApiKey ...).
    field(
        "authorization",
        "authorization",
        r"(?i)authorization[\"']?\s*[:=]\s*[\"']?(?:[A-Za-z-]+\s+)?"
        r"(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)",
        lambda m: token_value(m["secret"]),
    ),
    # The secret half of an (id, secret) pair passed to a client: Client(account_sid, "...").
    field(
        "secret",
        "sid, id, user, name,",
        r"(?i)(?:sid|id|user(?:name)?),\s*[\"'](?P<secret>[A-Za-z0-9._~+/=-]{12,})[\"']",
        lambda m: token_value(m["secret"]),
    ),
    # A generated literal handed to a call as a key: Credential(id, "..."), hmac.new(b"...").
    field(
        "secret",
        "(",
        r"[(,]\s*b?[\"'](?P<secret>[A-Za-z0-9+/_=.-]{20,256})[\"']",
        _secret_argument,
    ),
    field(
        "bearer-token",
        "bearer",
        r"(?i)(?<![A-Za-z0-9])bearer\s+(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)",
        lambda m: token_value(m["secret"]),
    ),
    # scheme://user:password@host, the user may be empty (redis://:password@host).
    field(
        "url-credentials",
        "://",
        r"(?<=://)[^/\s:@\"'<>`]*:(?P<secret>[^/\s@\"'<>`]+)(?=@)",
        _password,
        short=True,
    ),
    # scheme://KEY@host: a generated key as the whole user part (a Sentry DSN's key, a token
    # put before the host). A name ("git@", "bob@") is too short or not generated.
    field(
        "url-credentials",
        "://",
        r"(?<=://)(?P<secret>[A-Fa-f0-9]{24,}|[A-Za-z0-9_-]{32,})(?=@)",
        lambda m: token_value(m["secret"]),
    ),
    # Go's MySQL DSN: user:password@tcp(host:port)/db, with no scheme before it.
    field(
        "url-credentials",
        "@tcp( @unix(",
        r"(?<![\w:/@])[\w.-]{1,32}:(?P<secret>[^\s:@/\"'`]{4,64})@(?:tcp|unix|udp)\(",
        _password,
        short=True,
    ),
    field("azure-sas", "sig=", r"(?i)[?&;]sig=(?P<secret>[A-Za-z0-9%+/=]{20,})"),
    field(
        "password",
        "-u --user",
        r"(?<![\w-])(?:-u|--user)[ =]+[\"']?[^\s:\"']+:(?P<secret>[^\s\"']{4,})",
        _password,
        short=True,
    ),
    # A login and its password together: "the admin login is admin / X", "login: bob, X",
    # "the router login is admin and X", and with the password named, "login lena, pass X",
    # "user bob / pwd X", "账号 zhangsan，密码 X". After a name and such a separator, what
    # follows is the password even as a word typed at random ("PRYnnyEUPzmp").
    field(
        "password",
        "login credential creds 账号 账户 用户名 登录",
        rf"(?i)(?<![A-Za-z0-9])(?:log-?in|credentials?|creds|账号|账户|用户名|登录)"
        rf"(?![A-Za-z])[^.\n。;；]{{0,40}}?(?:\s(?:is|are)\s|[:：是为])\s*[^\s/,，;；]{{1,64}}?"
        rf"\s*(?:/|[,，;；]|\sand\s)\s*{_NAMED_PASSWORD}?{_QUOTE}{_VALUE}",
        _after_login,
        short=True,
    ),
    field(
        "password",
        # Keywords: the password's name, which the pattern needs ("user" is in most memories).
        "pass pw 密码",
        rf"(?i)(?<![A-Za-z0-9])(?:log-?in|user(?:\s?name)?|account|acct|账号|账户|用户名|登录)"
        rf"(?![A-Za-z])(?:\s+(?:name|id))?\s*[:：=]?\s*[^\s/,，;；]{{1,64}}?"
        rf"\s*(?:/|[,，;；]|\sand\s)?\s*{_NAMED_PASSWORD}{_QUOTE}{_VALUE}",
        _after_login,
        short=True,
    ),
    # A wallet's recovery words: twelve to twenty-four words after the label.
    field(
        "seed-phrase",
        "seed recovery mnemonic phrase 助记词 钱包",
        r"(?i)(?:(?:seed|recovery|mnemonic|backup|secret\s+recovery)\s+(?:phrase|words)|"
        r"mnemonic|助记词|(?:恢复|导入)钱包[^\n:：]{0,12}?(?:单词|words))"
        r"(?:[^\n:：=]{0,60}?[:：=]|\s+(?:is|are|was)|\s*[是为]"
        r"|\s+(?=(?:[\u4e00-\u9fff]\s+){11}))\s*[\"'“]?"
        r"(?P<secret>(?:[a-z]{3,8}[\s,]+){11,23}[a-z]{3,8}(?![a-z])"
        # Chinese wordlists are single characters: "动 他 不 所 能 主 经 们 大 学 对 这".
        r"|(?:[\u4e00-\u9fff][\s,，]+){11,23}[\u4e00-\u9fff](?![\u4e00-\u9fff]))",
        lambda m: len(re.split(r"[\s,，]+", m["secret"])) in (12, 15, 18, 21, 24),
        short=True,
    ),
    # A card's security code, always named ("CVV 428", "安全码 913"); American Express calls
    # its four digits the CID (a caller's or a content's id elsewhere: only near a card).
    field(
        "card-number",
        "cvv cvc csc cid card code security 安全码",
        r"(?i)(?<![A-Za-z])(?:(?:cvv2?|cvc2?|csc|(?P<cid>cid)|"
        r"card\s+(?:security\s+|verification\s+)?code|security\s+code)"
        r"(?:\s+on\s+the\s+back(?:\s+of\s+(?:the|my|your)\s+card)?)?|安全码)"
        r"(?:\s+(?:is|was|number)|\s*[:：=是为#])?\s*(?P<secret>\d{3,4})(?![\d-])",
        lambda m: (
            m["cid"] is None
            or _NEAR_A_CARD.search(m.string, max(0, m.start() - 80), m.start()) is not None
        ),
        short=True,
    ),
    # An IBAN wherever it stands: country, check digits, account; its mod-97 check must hold.
    field(
        "bank-account",
        "",
        r"(?<![A-Za-z0-9])(?P<secret>[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?)"
        r"(?![A-Za-z0-9])",
        lambda m: iban(m["secret"]),
    ),
    # A bank account, routing or sort code number, and an identity document's number, when
    # named as one ("account number 4839201746", "passport number X12345678", "护照号 E1234567").
    field(
        "bank-account",
        "account routing sort 银行卡号 卡号",
        r"(?i)(?:(?:bank\s+)?account\s+(?:number|no\.?|#)|acct\s*(?:no\.?|#)|"
        r"routing\s+(?:number|no\.?)|sort\s+code|银行卡号|银行账号|卡号)"
        r"(?:\s+(?:is|was)|\s*[:：=是为])?\s*(?P<secret>\d[\d -]{4,30}\d)(?![\d])",
        lambda m: sum(c.isdigit() for c in m["secret"]) >= 6,
        short=True,
    ),
    field(
        "national-id",
        "passport licence license 护照 驾照 驾驶证",
        r"(?i)(?:passport\s+(?:number|no\.?|#)|driver'?s?\s+licen[cs]e\s+(?:number|no\.?|#)|"
        r"护照号(?:码)?|驾照号(?:码)?|驾驶证号(?:码)?)(?:\s+(?:is|was)|\s*[:：=是为])?\s*"
        r"(?P<secret>[A-Z]{0,2}\d{6,12})(?![\dA-Za-z])",
        lambda m: True,
        short=True,
    ),
    # A national identity number given as one: a US social security number, a Chinese
    # resident identity card number.
    field(
        "national-id",
        "social security ssn 身份证",
        r"(?i)(?:social\s+security\s+(?:number|no\.?|#)|(?<![A-Za-z])ssn(?![A-Za-z])|"
        r"身份证(?:号码|号)?)[^\d\n]{0,12}?"
        r"(?P<secret>\d{3}-\d{2}-\d{4}|\d{9}|\d{17}[\dXx])(?![\dA-Za-z])",
        lambda m: len(set(m["secret"])) > 3,
        short=True,
    ),
    field(
        "secret",
        "<",
        r"(?i)<(?P<tag>[\w:-]*(?:password|passwd|secret|token|api_?key))>"
        r"(?P<secret>[^<\s]{4,})</(?P=tag)>",
        _password,
        short=True,
    ),
    field(
        "secret",
        "webhook",
        r"(?i)webhook[\w-]*[\"']?\s*[:=]\s*[\"']?(?P<secret>https?://[^\s\"'<>`]+)",
        lambda m: (
            re.search(r"/[^/?]*[A-Za-z0-9_-]{16,}|[?&][\w-]+=[\w-]{16,}", m["secret"]) is not None
        ),
    ),
    field("password", "pass pwd pw 密码 口令", _labelled(_STRONG), _after_password, short=True),
    field(
        "password",
        "wifi wi-fi wlan code combination key answer memorable "
        "门禁 密保 答案 激活码 序列号 开锁码 无线 门锁 密码锁 智能锁 保险 u盾",
        _labelled(_OPENS, bare=False),
        # Not a wifi QR code's next field ("WIFI:T:WPA;"): the rule above reads that one.
        lambda m: _after_password(m) and re.match(r"[A-Za-z]:", m["secret"]) is None,
        short=True,
    ),
    field(
        "password",
        "code combination combo",
        _labelled(_CODES, bare=False),
        # (A combination's digits may be dashed: "3-2-3-8".)
        lambda m: (
            re.fullmatch(r"\d(?:[-\s]?\d){2,7}", m["secret"]) is not None
            or (_after_password(m) and any(c.isdigit() for c in m["secret"]))
        ),
        short=True,
    ),
    # The answer to a security question, whatever words it is: "Security question: What
    # school did you attend? Answer: Brightwater Elementary", "密保答案填的王玉芬".
    field(
        "password",
        "security answer",
        r"(?i)(?:(?:security\s+question[^\n]{0,80}?\banswer|answer\s+to\s+(?:my|the)\s+security"
        r"\s+question)(?:\s+(?:is|was)|\s*[:：=])"
        # "for the bank's security question 'first school' I put Brightwater Elementary".
        r"|security\s+question[^\n]{0,80}?\bI\s+(?:put|used|wrote|entered|typed|gave))"
        r"\s*[\"'“]?(?P<secret>[^.,;!?\n\"'”]{2,40}?)"
        r"[\"'”]?(?=[.,;!?\n]|$)",
        lambda m: (
            _DESCRIBING_NAME.fullmatch(m["secret"].split()[0]) is None
            and _DESCRIBING_ANSWER.fullmatch(m["secret"].split()[0]) is None
        ),
        short=True,
    ),
    field(
        "password",
        "密保 安全问题",
        r"(?:密保(?:问题[^，。,\n]{0,20}?)?答案|安全问题(?:的)?答案)(?:是|为|填的|填了|写的|[:：])\s*"
        # (Not a question about it, nor what it is described as: "我忘了密保答案是什么了",
        # "密保答案是我妈的名字".)
        r"(?P<secret>(?!什么|啥|多少|哪|谁|几|忘|不记得|我|你|他|她|一个|这|那)"
        r"[\u4e00-\u9fffA-Za-z0-9]{2,12})(?![\u4e00-\u9fff]*[吗呢么？?])",
        lambda m: True,
        short=True,
    ),
    # A code said by what it does: "punch in 2324 at the keypad", "the lockbox opens with
    # 11-05-21", "2FA backup code 8a97e-178bc — use it if ...".
    field(
        "password",
        "keypad key pad panel lock",
        r"(?i)\b(?:punch|key|type|tap|enter)(?:\s+in)?\s+(?P<secret>\d{4,8}#?)\s+(?:at|on|into)\s+"
        r"(?:the\s+)?(?:[\w-]+\s+)?(?:keypad|key\s?pad|panel|lock|pad)\b",
        lambda m: len(set(m["secret"])) > 1,
        short=True,
    ),
    field(
        "password",
        "opens",
        r"(?i)\b(?:lockbox|lock\s?box|key\s?safe|safe|padlock|lock|door|gate)\b[^.\n]{0,40}?\bopens?\s+"
        r"(?:with|on)\s+(?P<secret>\d[\d-]{2,10}\d)(?![\w-])",
        lambda m: len(set(m["secret"].replace("-", ""))) > 1,
        short=True,
    ),
    field(
        "password",
        "backup code recovery code 2fa two-factor",
        r"(?i)\b(?:recovery|backup|2fa|two-factor)\s+codes?\s+"
        r"(?P<secret>[A-Za-z0-9]{4,10}-[A-Za-z0-9]{4,10})(?![\w-])",
        lambda m: any(c.isdigit() for c in m["secret"]),
        short=True,
    ),
    # A code or password said by what is done with it: "use 8030 to get into the side gate",
    # "type 6577 and hit OFF", "disarm with 6577", "the keypad takes 8030", "my pin? 0865",
    # "the laptop unlocks with X", "login's gonna be jsmith / X", "echo 'X' > vault_pass.txt",
    # "微信付款的时候输 989109", "wifi连 … 输 X", "PPPoE 那栏填 X", "授权码是 X" (a mail
    # client's code, sixteen letters).
    field(
        "password",
        "use",
        r"(?i)\buse\s+(?P<secret>\d{4,8}#?)\s+to\s+(?:get|go|let\s+yourself)\s+(?:in|into|through|past)\b",
        lambda m: True,
        short=True,
    ),
    field(
        "password",
        "hit press push",
        r"(?i)\b(?:type|enter|key\s+in|punch\s+in|tap\s+in)\s+(?P<secret>\d{4,8}#?)\s+(?:and|then)\s+(?:hit|press|push|tap)\b",
        lambda m: True,
        short=True,
    ),
    field(
        "password",
        "disarm unlock open",
        r"(?i)\b(?:disarm|unlock|open)(?:s|ed)?\s+(?:it\s+)?with\s+(?P<secret>\d{4,8}#?)(?![\d:/-]|\.\d)",
        lambda m: True,
        short=True,
    ),
    field(
        "password",
        "keypad pad",
        r"(?i)\bkey\s?pad\s+(?:takes|wants|needs|code\s+is)\s+(?P<secret>\d{4,8}#?)",
        lambda m: True,
        short=True,
    ),
    field(
        "password", "pin?", r"(?i)\bpin\?\s*(?P<secret>\d{4,8})(?!\d)", lambda m: True, short=True
    ),
    field(
        "password",
        "punch key tap",
        r"(?i)\b(?:punch|key|tap)\s+in\s+(?P<secret>\d{4,8}#?)(?![\d/:.,-]|\s+(?:numbers|digits|times))",
        lambda m: True,
        short=True,
    ),
    field(
        "password",
        "unlock",
        r"(?i)\bunlocks?\s+with\s+(?P<secret>[^\s,;\"']{6,64})(?=[\s,;.]|$)",
        _typed_value,
        short=True,
    ),
    field(
        "password",
        "login",
        r"(?i)\blogin(?:['’]s|\s+is)?\s+(?:gonna\s+be|going\s+to\s+be|will\s+be)?\s*[\w.@-]{2,40}\s*/\s*(?P<secret>[^\s,;\"']{4,64})",
        _password,
        short=True,
    ),
    field(
        "password",
        "echo",
        r"(?i)\becho\s+['\"](?P<secret>[^'\"\n]{6,64})['\"]\s*>{1,2}\s*\S*(?:pass|secret|token|key)\S*",
        lambda m: True,
        short=True,
    ),
    field(
        "password",
        "付款 支付 付钱",
        r"(?:付款|支付|付钱)(?:的时候)?\s*(?:输|输入|按)\s*(?P<secret>\d{6})(?!\d)",
        lambda m: True,
        short=True,
    ),
    field(
        "password",
        "wifi wi-fi 无线 pppoe 宽带",
        r"(?i)(?:wi-?fi|无线|pppoe|宽带)[^\n。]{0,30}?(?:就)?(?:输|输入|填)\s*(?P<secret>[A-Za-z0-9!@#$%^&*._-]{6,32})(?![A-Za-z0-9])",
        _password,
        short=True,
    ),
    field(
        "password",
        "授权码",
        r"授权码(?:是|为|[:：])\s*(?P<secret>[a-z]{16})(?![a-z])",
        lambda m: True,
        short=True,
    ),
    # A code's digits right after its name: "gate code 828705, leave the box on the porch"
    # ("the gate code changed" holds none).
    field(
        "password",
        "code combination combo",
        rf"(?i){_START}(?:{_CODES}|pass\s?code)\s+(?P<secret>\d{{4,8}}#?)(?![\w:/.-]|\s*(?:[年月日号点]|am|pm))",
        lambda m: len(set(m["secret"])) > 1,
        short=True,
    ),
    # A session cookie: whoever holds it is logged in ("Cookie: sessionid=...").
    field(
        "secret",
        "session sessid sid=",
        r"(?i)(?<![A-Za-z0-9_])(?:session_?id|sessid|phpsessid|jsessionid|connect\.sid|sid|"
        r"_session|session(?:_token|_key)?)=(?P<secret>[A-Za-z0-9%._~+/-]{16,})",
        lambda m: token_value(m["secret"]),
    ),
    # The password said before its label: "I use Lk-2290! as the password for everything".
    # The value must look typed (a digit or a symbol, or letters mixed at random): "I use
    # Bitwarden as my password manager" names a tool.
    field(
        "password",
        "pass pin code 密码",
        rf"(?i)(?<![A-Za-z0-9])(?:use|used|using|reuse|reused)\s+{_QUOTE}"
        r"(?P<secret>[^\s\"'`“”‘’]{4,64}?)[\"'`”’]?\s+(?:as|for)\s+"
        r"(?:(?:the|my|our|a|all|every|each)\s+){0,2}"
        rf"(?:{_STRONG}|pass\s?code|pin)(?:s|\s+codes?)?(?![\w-])"
        r"(?!\s+(?:manager|generator|vault|app|policy|field|reset|hint|rules?|strength|"
        r"checker|list|store|keeper|safe|prompt|box|requirements?)\b)",
        _typed_value,
        short=True,
    ),
    # A mother's maiden name is the security answer banks and card issuers ask for: it
    # recovers an account as a password does.
    field(
        "password",
        "maiden",
        rf"(?i)(?<![A-Za-z0-9])mother['’]?s\s+maiden\s+name(?:\s+(?:is|was)|\s*[:：=])\s*"
        rf"{_QUOTE}(?P<secret>[^\W\d_][\w'’-]{{1,40}})(?![\w'’-])",
        lambda m: _DESCRIBING_NAME.fullmatch(m["secret"]) is None,
        short=True,
    ),
    # A password set to a new value: "changed my gmail password to X", "reset the PIN to X".
    field(
        "password",
        "chang set reset updat switch rotat",
        rf"(?i)\b(?:chang|set|reset|updat|switch|rotat)\w*\s+(?:[\w'’-]+\s+){{0,4}}?"
        rf"(?:{_STRONG}|{_OPENS}|pin|login)\s+to\s+{_QUOTE}{_VALUE}",
        lambda m: password_value(m["secret"]),
        short=True,
    ),
    field(
        "secret",
        "key secret token pat credential 密钥 秘钥 私钥 令牌 凭证 凭据 授权码",
        _labelled(_WEAK),
        _after_key,
    ),
    # A generated value after a colon, its label further back in the clause: "the secret key
    # for the staging user, don't paste it anywhere: X", "the project token so you can resize
    # the box: X". With the label this far off, only a value that reads as generated.
    field(
        "secret",
        "key secret token credential ak sk 密钥 秘钥 私钥 令牌 凭证 凭据",
        r"(?i)(?<![A-Za-z0-9])(?:key|secret|token|credentials?|ak|sk|密钥|秘钥|私钥|令牌|凭证|凭据)"
        r"s?(?![A-Za-z0-9])(?P<gap>[^\n.。!?！？:：=]{0,80}?)[:：=]\s*[\"'`“]?"
        r"(?P<secret>[^\s\"'`“”，。、]{15,255}?[^\s\"'`“”，。、.,;!?)])"
        r"(?=[.,;!?)]*(?:[\s\"'`“”，。、]|$))",
        _far_from_label,
    ),
    field(
        "password",
        "code otp 验证码 校验码 动态码 动态密码 短信码 确认码",
        _ONE_TIME_CODE,
        lambda m: len(set(m["secret"])) > 1,
        short=True,
    ),
    field(
        "password",
        "pw pass",
        rf"(?i)(?<![A-Za-z0-9])(?:pw|pass)(?:\s*[:=：]|\s+(?:[—–]|-{{1,2}}))\s*{_QUOTE}{_VALUE}",
        _password,
        short=True,
    ),
    # A password given to a command on its line: mysql -pX, sshpass -p X, redis-cli -a X,
    # docker login -p X, --password X.
    field(
        "password",
        "mysql mariadb sshpass redis-cli login --pass twine",
        r"(?:(?:mysql|mysqldump|mariadb)\b[^\n|;&]*?\s-p(?=[^\s-])"
        r"|(?:sshpass|docker login|podman login|helm registry login|twine upload)\b"
        r"[^\n|;&]*?\s-p\s+"
        r"|redis-cli\b[^\n|;&]*?\s-a\s+"
        r"|(?<![\w-])--pass(?:word|wd)?(?:=|\s+))"
        rf"{_QUOTE}(?P<secret>[^\s\"'`]{{4,}})",
        _password,
        short=True,
    ),
    # A cloud's access key and secret key by their short names, "AK" and "SK": letters, digits and
    # base64's "/+=" only (a sort key "sk: ORDER#2024-..." is a database's, no secret).
    field(
        "secret",
        "sk ak",
        r"(?i)(?<![A-Za-z0-9])[as]k(?:\s+(?:for|of)\s+[^,.;:!?\n\"'“]{1,40}?)?"
        rf"(?:{_ASIDE})?(?:\s*[:=：是为]|\s+(?:is|was))\s*{_QUOTE}"
        r"(?P<secret>[A-Za-z0-9/+=]{20,80})(?![A-Za-z0-9/+=#])",
        lambda m: token_value(m["secret"]),
    ),
    # A key given to a command by a flag: --secret-key X, --api-key=X, --token X, -k=X (a
    # cloud tool's secret key; "-k" alone is curl's "insecure", with no value).
    field(
        "secret",
        "-k= --sk --secret --token --api-key --api_key --apikey --access-key --access_key "
        "--account-key --account_key",
        r"(?i)(?<![\w-])(?:-k=|--(?:sk|secret(?:[-_]?(?:access[-_]?)?key)?|token|api[-_]?key|account[-_]?key|"
        r"access[-_]?key[-_]?secret)(?:=|\s+))[\"']?(?P<secret>[^\s\"']{16,})",
        lambda m: token_value(m["secret"]),
    ),
    # A passphrase is words: the whole clause after the label.
    field(
        "password",
        "passphrase 口令",
        r"(?i)(?<![A-Za-z0-9])passphrase(?:\s+for\s+[^.,;:\n]{1,30}?)?"
        r"(?:\s+(?:this|for\s+the|for\s+this)\s+(?:month|week|year))?\s*(?:[:=→]|->|\s+is)\s*"
        r"[\"'“]?(?P<secret>[^.,;:!?\n\"'”]{4,80}?)[\"'”]?(?=[.,;!?\n]|$)",
        lambda m: _password(m) and not _DESCRIBES_PASSPHRASE.search(m["secret"]),
        short=True,
    ),
    # A PIN: digits after the word and "is" or ":" ("my bank PIN is 4821", "PIN码：0417").
    Rule(
        "pin",
        (
            *("pin is", "pin was", "pin number", "pin code", "pin:", "pin：", "pin=", "pin码"),
            *("pin是", "pin for", "pin of", "pin on", "pin to", "pin at"),
        ),
        # The PIN may be named by what it opens: "the PIN for my debit card is 4471" (someone's
        # card, phone or lock, not "the pin on the board", a connector's).
        r"(?i)(?<![A-Za-z0-9])pin(?:\s*code|码)?"
        rf"(?:\s+(?:for|of|on|to|at)\s+(?P<what>{_PHRASE}{{1,40}}?))?"
        r"(?:\s+(?:number\s+)?(?:is|was)|\s*[:=：是为])\s*"
        r"(?P<secret>\d{4,8})(?!\d)",
        lambda m: m["what"] is None or _PIN_OPENS.search(m["what"]) is not None,
        True,
    ),
    # Two-factor backup codes: a run of codes after their label ("recovery codes: 7916-8562
    # 9651-6035 ...", "备用码：..."), each a group or two of digits and letters.
    field(
        "backup-codes",
        "backup recovery codes 备用码 恢复码 救援码",
        r"(?i)(?:(?:backup|recovery|rescue|2fa|two-factor)\s+codes?|备用码|恢复码|救援码)"
        r"[^\n:：]{0,40}?[:：]\s*"
        r"(?P<secret>[A-Za-z0-9]{4,10}(?:-[A-Za-z0-9]{4,10})?"
        r"(?:[\s,，;；]+[A-Za-z0-9]{4,10}(?:-[A-Za-z0-9]{4,10})?){2,})",
        lambda m: sum(c.isdigit() for c in m["secret"]) * 2 >= len(m["secret"].split()[0]),
        short=True,
    ),
    field(
        "card-number",
        "",
        # Not a part of a longer run of digit groups (a UUID written in digits alone).
        r"(?<![0-9A-Za-z_.+-])(?P<secret>(?:\d[ -]?){12,18}\d)(?![0-9A-Za-z_]|[.,-]\d)",
        lambda m: card_number(m["secret"], m.string[max(0, m.start() - 24) : m.start()]),
    ),
)
