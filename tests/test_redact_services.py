"""Service tokens by their published shapes, and prose that names a code or a PIN.

Tokens are generated here, at random, in each provider's shape: no real or fixed secret sits in
the repository, and a rule cannot be fitted to one string.
"""

from __future__ import annotations

import random
import string
import uuid

import pytest

from everbot_memory.core.redaction import redact

_RANDOM = random.Random(7)
_UPPER, _LOWER, _DIGITS = string.ascii_uppercase, string.ascii_lowercase, string.digits
_ALNUM = _UPPER + _LOWER + _DIGITS
_HEX = "0123456789abcdef"


def _run(length: int, alphabet: str = _ALNUM) -> str:
    # At least one digit and one letter of each case the alphabet has, as generated keys do.
    while True:
        value = "".join(_RANDOM.choice(alphabet) for _ in range(length))
        wanted = [s for s in (_UPPER, _LOWER, _DIGITS) if set(s) & set(alphabet)]
        if all(set(value) & set(s) for s in wanted):
            return value


def _uuid() -> str:
    return str(uuid.UUID(int=_RANDOM.getrandbits(128), version=4))


def _tokens() -> dict[str, str]:
    return {
        "doppler service token": f"dp.st.prd.{_run(43)}",
        "doppler personal token": f"dp.pt.{_run(43)}",
        "hubspot private app": f"pat-na1-{_uuid()}",
        "hubspot eu": f"pat-eu1-{_uuid()}",
        "tailscale auth key": f"tskey-auth-{_run(11)}CNTRL-{_run(33)}",
        "tailscale client secret": f"tskey-client-{_run(12)}CNTRL-{_run(30)}",
        "contentful": f"CFPAT-{_run(43, _ALNUM + '_-')}",
        "shippo": f"shippo_live_{_run(40, _HEX)}",
        "typeform": f"tfp_{_run(44)}_{_run(14)}",
        "twitch": f"oauth:{_run(30, _LOWER + _DIGITS)}",
        "frame.io": f"fio-u-{_run(64, _ALNUM + '_-')}",
        "yandex oauth": f"y0_{_run(55, _ALNUM + '_-')}",
        "yandex api key": f"AQVN{_run(36, _ALNUM + '_-')}",
        "adafruit": f"aio_{_run(28)}",
        "clojars": f"CLOJARS_{_run(60, _HEX)}",
        "prefect user": f"pnu_{_run(36)}",
        "prefect bot": f"pnb_{_run(36)}",
        "readme": f"rdme_{_run(70, _LOWER + _DIGITS)}",
        "ngrok": f"2{_run(26)}_{_run(21)}",
        "duffel": f"duffel_live_{_run(43, _ALNUM + '_-')}",
        "easypost": f"EZAK{_run(54)}",
        "easypost test": f"EZTK{_run(54)}",
        "scalingo": f"tk-us-{_run(48, _ALNUM + '_-')}",
        "launchdarkly api": f"api-{_uuid()}",
        "launchdarkly sdk": f"sdk-{_uuid()}",
        "harness": f"pat.{_run(22, _ALNUM + '_-')}.{_run(24, _HEX)}.{_run(20)}",
        "dynatrace": f"dt0c01.{_run(24, _UPPER + _DIGITS)}.{_run(64, _UPPER + _DIGITS)}",
        "htpasswd apr1": f"$apr1${_run(8, _ALNUM + './')}${_run(22, _ALNUM + './')}",
        "sha512-crypt": f"$6${_run(16, _ALNUM + './')}${_run(86, _ALNUM + './')}",
    }


TOKENS = _tokens()


@pytest.mark.parametrize("name", sorted(TOKENS))
def test_a_service_token_is_redacted_wherever_it_stands(name: str) -> None:
    token = TOKENS[name]
    for text in (
        f"we set up {token} yesterday",
        f"export SERVICE={token}",
        f'config = {{"auth": "{token}"}}',
        token,
    ):
        result = redact(text)
        assert token not in result.text, (name, result.text)
        assert result.found, name
        assert redact(result.text).found == ()


@pytest.mark.parametrize(
    "text",
    [
        "we route requests through api-gateway",
        "a pat on the back for the team",
        "oauth: we use it for login",
        "oauth:token is the scheme twitch chat expects",
        "the request id was " + "3f2b8c1e-5d4a-4e7b-9c2d-1a2b3c4d5e6f",
        "sdk-version is 2.4.1",
        "api-v2-beta is deprecated",
        "tskey is what tailscale calls its keys",
        "dt0c01 is the prefix Dynatrace uses",
        "upgraded to version 3.12.4-rc1",
        "the docker image digest is sha256:" + "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        "the test 2FactorAuthenticationHandler_ResetPasswordFlowWorks failed",
        "the price went from $1$ to $5$ per seat",
        "aio_ is the prefix of Adafruit keys",
    ],
)
def test_text_near_a_token_shape_is_left_alone(text: str) -> None:
    assert redact(text).text == text


def _digits(count: int) -> str:
    return "".join(_RANDOM.choice(_DIGITS) for _ in range(count))


_WORDS = ["lakeview", "otter", "copper", "meadow", "falcon", "juniper", "harbor", "quartz"]


def _phrase() -> str:
    return f"{_RANDOM.choice(_WORDS)}-{_RANDOM.choice(_WORDS)}-{_digits(2)}"


# (sentence, value): a password or a code with a phrase between its label and its value, or
# said before its label.
PROSE = [
    (f"the wifi password at the cabin is {(v := _phrase())}", v),
    (f"the wifi password in the guest house is {(v := _phrase())}.", v),
    (f"I use {(v := _phrase().capitalize() + '#')} as the password for everything", v),
    (f"I use {(v := _phrase())} as my passcode everywhere", v),
    (f"we used '{(v := _phrase())}' for all the passwords", v),
    (f"the gate code at the office is {(v := _digits(4) + '#')}", v),
    (f"the alarm code at home is {(v := _digits(4))}", v),
    (f"the code for the garage door is {(v := _digits(4))}", v),
    (f"the code to the storage unit is {(v := _digits(4))}", v),
    (f"the combination for my bike lock is {(v := _digits(4))}", v),
    (f"the PIN for my debit card is {(v := _digits(4))}", v),
    (f"PIN on my card: {(v := _digits(4))}", v),
    (f"the answer to my security question is Bramble{(v := _digits(4))}", v),
    (f"the password for my mom's laptop is {(v := _phrase())}", v),
    (f"password for my mom’s laptop: {(v := _phrase())}", v),
    (f"the answer to the security question about my first car is Corolla{(v := _digits(2))}", v),
    ("my mother's maiden name is Okonkwo", "Okonkwo"),
    ("My mother’s maiden name: Fairweather.", "Fairweather"),
]


@pytest.mark.parametrize(("text", "secret"), PROSE)
def test_a_code_or_password_with_a_phrase_before_its_value_is_redacted(
    text: str, secret: str
) -> None:
    result = redact(text)
    assert secret not in result.text, result.text
    assert result.found


@pytest.mark.parametrize(
    "text",
    [
        "the code for the project is on GitHub",
        "the code for the login page is in src/auth",
        "the code for the storage unit tests is flaky",
        "the code for the office is ready",
        "the gate code is open now",
        "the answer is 42",
        "the answer to my question is in the docs",
        "the PIN diagram on page 3",
        "the pin on the board is 3300",
        "the PIN for the LED is 13",
        "the password policy changed last week",
        "the password at work expires every 90 days",
        "the wifi password at the cabin is written on the fridge",
        "the alarm code at home is the same as before",
        "the password in the email is wrong",
        "I use vim as the editor for everything",
        "I use Bitwarden as my password manager",
        "I use 1Password as my password manager",
        "I use this as my password",
        "I use the same password for everything",
        "I used v2.1 for the password reset flow",
        "the combination of the two is 2x faster",
        "my mother's name is Maria",
        "the password for Bob's account is secure",
        "the password about the VPN is in the wiki",
        "my mother's maiden name is on file",
        "mother's maiden name: required for the bank form",
    ],
)
def test_prose_near_a_code_or_password_label_is_left_alone(text: str) -> None:
    assert redact(text).text == text


def test_a_prefixed_token_of_a_service_no_rule_knows_is_redacted() -> None:
    # Made-up prefixes: the shape of a service token, not any one service's.
    for prefix in ("zq_", "acme_live_", "wdgt-", "Kx_pat_", "svc_api_"):
        for run in (_run(32), _run(40, _LOWER + _DIGITS), _run(56)):
            token = prefix + run
            result = redact(f"we set up {token} yesterday")
            assert token not in result.text, result.text


@pytest.mark.parametrize(
    "text",
    [
        # Digests and ids after a prefix are no credentials; hex is read as a digest.
        "layer sha256-" + "4b825dc642cb6eb9a060e54bf8d69288fbee4904a1b2c3d4e5f60718293a4b5c",
        "the page My-Notes-" + "0123456789abcdef0123456789abcdef" + " moved",
        "build_" + "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "commit-" + "3Fa9cB71dE" * 4,
        "chatcmpl-" + "9pWk8Zq1lX3mN0bV7cR2tY6uH4jEa1Bc",
        # Names: long, mixed case, few digits, the case changing once a word.
        "test_ConnectionPoolHandlesTimeoutsGracefullyUnderLoad2",
        "the class is My_VeryLongGeneratedProtobufMessageTypeName3D",
        "set LOG_FORMAT_WITH_TIMESTAMPS_AND_THREAD_NAMES_ENABLED=1",
    ],
)
def test_a_digest_or_a_name_after_a_prefix_is_left_alone(text: str) -> None:
    assert redact(text).text == text
