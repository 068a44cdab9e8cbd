"""Checks that tell a secret from text of the same shape: card numbers, Basic credentials, and
the value after a label ("password: ...", "API key is ...")."""

from __future__ import annotations

import base64
import binascii
import re
from itertools import pairwise

from .rule import plausible

__all__ = [
    "basic_credentials",
    "card_number",
    "generated",
    "iban",
    "luhn",
    "mixed_hex",
    "names_data",
    "password_value",
    "random_body",
    "token_value",
]

# The issuer prefixes card networks publish (Visa, Mastercard, Amex, Discover, JCB, Diners,
# UnionPay, Maestro, Mir): a 16-digit order or tracking number rarely starts with one AND
# passes the Luhn check.
_ISSUER = re.compile(
    r"4|5[1-5]|2(?:2[2-9][1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720)|3[47]|6011|64[4-9]|65|"
    r"35(?:2[89]|[3-8]\d)|30[0-5]|36|3[89]|62|5[06-9]|6\d|220[0-4]"
)


def luhn(digits: str) -> bool:
    """True when ``digits`` pass the Luhn checksum every card number carries."""
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


# A number introduced as an order, tracking or invoice number is not a card's.
_OTHER_NUMBER = re.compile(
    r"(?i)(?:order|tracking|invoice|shipment|parcel|ticket|account|phone|订单|单号|运单|发票|"
    r"账号|手机|电话)[^\n\d]{0,12}$"
)


# A card named as one just before its number ("my Visa: ...", "卡号", "the card ending").
_NAMES_A_CARD = re.compile(
    r"(?i)(?:card|visa|master\s?card|amex|american\s+express|discover|maestro|unionpay|"
    r"银联|信用卡|借记卡|储蓄卡|银行卡|卡)"
)
# Sixteen digits in four groups of four, as a card is printed.
_PRINTED_CARD = re.compile(r"\d{4}([ -])\d{4}\1\d{4}\1\d{4}")


def card_number(text: str, before: str = "") -> bool:
    """True for a payment card number: 13 to 19 digits, an issuer's prefix, the Luhn check,
    and not introduced as another kind of number (``before`` is the text in front of it).

    A number printed as a card's (four groups of four) just after the card is named needs no
    Luhn check: a mistyped card number still holds most of the real one."""
    digits = re.sub(r"[ -]", "", text)
    return (
        _OTHER_NUMBER.search(before) is None
        and 13 <= len(digits) <= 19
        and _ISSUER.match(digits) is not None
        and len(set(digits)) > 1
        and (
            luhn(digits)
            or (_PRINTED_CARD.fullmatch(text) is not None and bool(_NAMES_A_CARD.search(before)))
        )
    )


def iban(text: str) -> bool:
    """True for an International Bank Account Number: 15 to 34 characters whose mod-97 check
    (ISO 13616) holds."""
    value = text.replace(" ", "")
    if not 15 <= len(value) <= 34:
        return False
    moved = value[4:] + value[:4]
    digits = "".join(str(int(c, 36)) for c in moved)
    return int(digits) % 97 == 1


_CREDENTIALS = re.compile(r"[^\s:\"'{}\[\]]+:[^\s\"'{}]+")


def basic_credentials(text: str) -> bool:
    """True when ``text`` is base64 of ``user:password`` (what an HTTP Basic header carries)."""
    try:
        decoded = base64.b64decode(text + "=" * (-len(text) % 4), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False  # not base64 of text: a word that follows "Basic", not credentials
    # user:password, not JSON ('{"alg":"HS256"}' is a JWT header, also base64 with a colon).
    return _CREDENTIALS.fullmatch(decoded) is not None


# Words that say what a password is like, not what it is ("the password is wrong").
_DESCRIBING = re.compile(
    r"(?i)(?:wrong|right|correct|incorrect|(?:in)?valid|weak|strong|long|short|empty|blank|"
    r"missing|unset|set|same|different|secret|private|(?:in)?secure|mandatory|optional|fine|"
    r"ok|okay|good|bad|new|old|gone|lost|(?:un)?known|hidden|masked|visible|shared|personal|"
    r"temporary|random|default|none|null|nil|true|false|here|there|below|above|too|not|also|"
    r"\w+(?:ed|ing|ly|able|ible|ous|ive|ful|less|ent|ant|al|ion))"
)
_SYMBOL = re.compile(r"[0-9_\-/+=.!@#$%^&*~?]")
# What a value may not look like: a call (os.getenv("X")), an attribute or variable
# (settings.SECRET_KEY, YOUR_API_KEY), a path (~/.ssh/id_rsa), a file name (server.key), or
# the next assignment ("notes on db-password: POSTGRES_PASSWORD=..." holds its own label).
_NOT_A_VALUE = re.compile(
    # (A path starts with "/"; so may a base64 key: "/sRGE2QUMjAVd...fHw==".)
    r"^(?:[\w.]+\(.*|[A-Za-z_]+(?:\.[A-Za-z_]+)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|"
    r"[~.]?/(?![A-Za-z0-9+/]{40,}={0,2}$).*|"
    r"[\w-]+\.(?:pem|key|json|txt|env|ya?ml|toml|cfg|ini|crt|p12|pfx))$"
    r"|(?i:pass(?:word|wd|phrase)?|pwd|secret|token|key)[\"']?[:=]"
)

# What a password's value is in examples: a mask, a template, the word itself.
_PLACEHOLDER_PASSWORD = re.compile(
    r"(?i)^(?:pass(?:word)?|pwd|secret|changeme|redacted|hidden|example|placeholder|\*+|x+|"
    r"\[?redacted.*)$|.*(?:x{4,}|\*{3,}|•{3,}|\.{3}|…|\$\{|\{\{|<)"
)


def password_value(value: str, ends_clause: bool = True) -> bool:
    """True for what follows a password label when it is the password itself.

    A value with a digit or a symbol is one ("hunter2"); a single word is one only when it ends
    the clause and is not a word describing the password ("the wifi password is sunshine", but
    not "the password is wrong" or "the password is stored in Vault").
    """
    if len(value) < 4 or len(set(value)) < 2:
        return False
    if _PLACEHOLDER_PASSWORD.match(value) or _NOT_A_VALUE.search(value):
        return False
    if _SYMBOL.search(value):
        return True
    return ends_clause and _DESCRIBING.fullmatch(value) is None


# Keys that name data, not access: "the Redis key is session:ab12", "the public key is ...".
_DATA_KEY = re.compile(
    r"(?i)(?:public|publishable|cache|redis|primary|foreign|sort|partition|hash|object|s3|"
    r"bucket|dict|map|lookup|index|shard|routing|idempotency|composite|unique|row|column|"
    r"translation|i18n|list|cursor|公|缓存|主)[\s_-]*$"
)


def names_data(before: str) -> bool:
    """True when the text in front of a "key" label says it is a data key ("the cache key")."""
    return _DATA_KEY.search(before) is not None


def token_value(value: str) -> bool:
    """True for what follows a token or key label when it looks like a generated token: long,
    letters and digits mixed within one run, not a placeholder, a name or a version."""
    if len(value) < 12 or not plausible(value) or _NOT_A_VALUE.search(value):
        return False
    if value.lower().startswith(("ssh-", "ecdsa-", "sha256:", "sha1:", "md5:")):
        return False  # a public key or a fingerprint, which may be shared
    if re.fullmatch(r"0x(?:[0-9A-Fa-f]{8}|[0-9A-Fa-f]{16})", value):
        return False  # an OpenPGP key id ("key 0x3AA5C34371567BD2"), public
    for part in re.split(r"[-_.:/+=~]", value):
        letters = any(c.isalpha() for c in part)
        digits = any(c.isdigit() for c in part)
        if (len(part) >= 5 and letters and digits) or len(part) >= 24:
            return True
    return False


_CAPITALISED = re.compile(r"[A-Z][a-z]{2,}")


def random_body(body: str) -> bool:
    """True for letters and digits as a generator makes them: the kind of character (upper,
    lower, digit) changing often, digits among them, and one of: both cases with few
    capitalised words (not a CamelCase name); lower case only, past "f" (base36) or a hex
    run of 32 or more; upper case only (base32)."""
    digits = sum(c.isdigit() for c in body)
    upper = sum(c.isupper() for c in body)
    lower = len(body) - digits - upper
    kinds = ["d" if c.isdigit() else "u" if c.isupper() else "l" for c in body]
    changes = sum(1 for a, b in pairwise(kinds) if a != b)
    if changes * 5 < len(body) or digits < 2:
        return False
    if upper >= 2 and lower >= 2:
        return len(_CAPITALISED.findall(body)) * 2 < upper
    if upper == 0:
        return re.search(r"[g-z]", body) is not None and digits * 10 >= len(body)
    return lower == 0 and len(body) >= 20


def mixed_hex(body: str) -> bool:
    """True for hex digits as a generator makes them: letters and digits both, and changing
    often (not "deadbeefdeadbeef", not a run of zeros)."""
    digits = sum(c.isdigit() for c in body)
    kinds = [c.isdigit() for c in body]
    changes = sum(1 for a, b in pairwise(kinds) if a != b)
    return 2 <= digits < len(body) - 1 and changes * 5 >= len(body)


def generated(value: str) -> bool:
    """True for a value a generator made, whatever separators it holds: its letters and
    digits (16 or more) read as random (:func:`random_body`), or as hex of 32 or more (see
    :func:`mixed_hex`). Stricter than :func:`token_value`, for a value no label stands right
    before."""
    body = re.sub(r"[^A-Za-z0-9]", "", value)
    if len(body) < 16 or not plausible(value):
        return False
    if re.fullmatch(r"[0-9a-fA-F]+", body):
        return len(body) >= 32 and mixed_hex(body)
    return random_body(body)
