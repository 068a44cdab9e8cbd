"""Provider token formats, written from the shapes each provider publishes for its keys.

One rule a line: the placeholder's kind, the keywords (lowercase, space-separated) one of which
a text must hold for the pattern to be tried (none: any text with a long token-like run), and
the pattern, matched as a whole word. Ordered so that a longer prefix comes before a shorter
one it starts with (``sk-ant-`` before ``sk-``).
"""

from __future__ import annotations

import base64
import binascii
import re

from .checks import mixed_hex, random_body
from .rule import Rule, plausible, token

__all__ = ["PROVIDERS"]


def _has_digit(value: str) -> bool:
    # A generated key of 20 or more characters almost always holds a digit; a hyphenated word
    # after "sk-" ("sk-learn-compatible-models") does not.
    return plausible(value) and any(c.isdigit() for c in value)


def _ngrok(value: str) -> bool:
    # Both halves generated: upper and lower case and a digit in each (not a snake_case name
    # that starts with a digit).
    return plausible(value) and all(
        any(c.isupper() for c in part)
        and any(c.islower() for c in part)
        and any(c.isdigit() for c in part)
        for part in value.split("_")
    )


# Prefixes that name a digest or an object's id, not a credential.
_NAMES_A_DIGEST = re.compile(
    r"(?i)(?:sha\d*|md5|blake\d*\w*|hash|digest|checksum|etag|commit|rev|id|uuid|guid|"
    r"trace|span|build|run|req|request|msg|obj|object|file|blob|cache|layer|image|chatcmpl)$"
)


def _generated(value: str) -> bool:
    """True for a service's token of a shape no rule knows: a short prefix ("acme_", "wdgt-"),
    maybe a word or two ("live_", "pat_"), then a body of letters and digits (in one run, or
    in parts joined by "_" or "-": a checksum, a second half) as a generator makes them. The
    body is 32 characters or more, or 16 when the prefix names a credential ("sm_pat_",
    "API-"); see :func:`.checks.random_body` for what a generated body looks like.

    A body of hex digits alone is a token only after a credential's name, or after a prefix
    joined by "_" ("e2b_..."): with "-" or "." it is a name made of a hash far more often
    (a cache key "Linux-node-<sha>", a tag "main-<sha>", a file "app.<sha>.js")."""
    parts = _PREFIXED.fullmatch(value)
    if parts is None:
        return False
    head: str = parts["head"]
    if _NAMES_A_DIGEST.search(head):
        return False
    segments = re.split(r"[_-]", parts["rest"])
    words = [head]
    while len(segments) > 1 and segments[0].isalpha() and len(segments[0]) <= 8:
        words.append(segments.pop(0))
    if any(_NAMES_A_DIGEST.search(w) for w in words[1:]):
        return False
    if any(len(part) >= 4 and part.isalpha() and part.islower() for part in segments):
        return False  # a word in the body: a name ("pkg_resources-..."), not a generator's
    body = "".join(segments)
    named = any(w.lower() in _CREDENTIAL_WORDS for w in words)
    if len(body) < (16 if named else 32) or not plausible(body):
        return False
    if re.fullmatch(r"[0-9a-fA-F]+", body):
        joined = parts["sep"] == "_" and not _NAMES_A_CHANGE.fullmatch(head)
        return (named or joined) and mixed_hex(body)
    return random_body(body)


def _encoded_prose(value: str) -> bool:
    """True for base64 of plain words ("VGhlc2UgYXJl..." is "These are..."): an example's
    text, not a key."""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    return decoded.count(" ") * 8 >= len(decoded) and all(c.isprintable() for c in decoded)


def _bare_random(value: str) -> bool:
    """True for a run with no prefix that reads as generated: upper and lower case letters and
    digits, three or more of each (see :func:`.checks.random_body`). Not the body of a public
    key (an SSH key's "AAAA...", a DER key's "MII...")."""
    if value.startswith(("AAAA", "MII")):
        return False
    if len(re.findall(r"[A-Z][a-z]{4,}", value)) >= 2:
        return False  # a name made of words: "NFCISO15693ReadMultipleBlocksConfiguration"
    if _encoded_prose(value):
        return False
    counts = (
        sum(c.isupper() for c in value),
        sum(c.islower() for c in value),
        sum(c.isdigit() for c in value),
    )
    return min(counts) >= 3 and plausible(value) and random_body(value)


#: Words that name a change, a build or a place, before a hash in a name.
_NAMES_A_CHANGE = re.compile(
    r"(?i)fix|feat|feature|branch|release|hotfix|patch|bug|issue|pr|mr|pkg|package|app|v|ver|"
    r"version|python|node|main|master|dev|prod|cache|tmp|temp|user|session|sess|doc|file"
)
#: Words of a prefix that name a credential: the body after them may be shorter.
_CREDENTIAL_WORDS = frozenset(["api", "apikey", "auth", "key", "pat", "secret", "sk", "token"])
_PREFIXED = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9]{1,11})(?P<sep>[_-])(?P<rest>[A-Za-z0-9_-]+)")


PROVIDERS: tuple[Rule, ...] = (
    # Model providers
    token("anthropic-key", "sk-ant-", r"sk-ant-[A-Za-z0-9_-]{20,}"),
    token("openrouter-key", "sk-or-", r"sk-or-v\d-[0-9a-f]{64}"),
    token(
        "openai-key", "sk-", r"sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}", _has_digit
    ),
    token("xai-key", "xai-", r"xai-[A-Za-z0-9]{70,}"),
    token("groq-key", "gsk_", r"gsk_[A-Za-z0-9]{48,}"),
    token("perplexity-key", "pplx-", r"pplx-[A-Za-z0-9]{40,}"),
    token("huggingface-token", "hf_ api_org_", r"(?:hf_|api_org_)[A-Za-z0-9]{30,}"),
    token("replicate-token", "r8_", r"r8_[A-Za-z0-9]{37}"),
    token("langsmith-key", "lsv2_", r"lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}"),
    token("pinecone-key", "pcsk_", r"pcsk_[A-Za-z0-9_]{50,}"),
    token("tavily-key", "tvly-", r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}"),
    token("firecrawl-key", "fc-", r"fc-[0-9a-f]{32}"),
    token("fireworks-key", "fw_", r"fw_[A-Za-z0-9]{24,}"),
    token("elevenlabs-key", "sk_", r"sk_[0-9a-f]{48}"),
    token("nvidia-key", "nvapi-", r"nvapi-[A-Za-z0-9_-]{64}"),
    token("voyage-key", "pa-", r"pa-[A-Za-z0-9_-]{43}"),
    token("zhipu-key", "", r"[0-9a-f]{32}\.[A-Za-z0-9]{16}"),
    # Clouds
    token(
        "aws-key",
        "akia asia abia acca agpa aida aipa anpa anva apka aroa asca a3t",
        r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA|ASCA)[A-Z0-9]{16}",
    ),
    token("azure-client-secret", "q~", r"[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}"),
    token("azure-devops-pat", "azdo", r"[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}"),
    token("google-api-key", "aiza", r"AIza[0-9A-Za-z_-]{35}"),
    token("google-oauth-secret", "gocspx-", r"GOCSPX-[A-Za-z0-9_-]{28}"),
    token("google-refresh-token", "1//", r"1//0[A-Za-z0-9_-]{40,}"),
    token("google-access-token", "ya29.", r"ya29\.[0-9A-Za-z_-]{20,}"),
    token("firebase-server-key", "apa91b", r"AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}"),
    token("alibaba-access-key", "ltai", r"LTAI[A-Za-z0-9]{12,20}"),
    token("tencent-secret-id", "akid", r"AKID[A-Za-z0-9]{32}"),
    token("volcengine-access-key", "aklt", r"AKLT[A-Za-z0-9_-]{40,}"),
    token("digitalocean-token", "dop_v1_ doo_v1_ dor_v1_", r"do[por]_v1_[a-f0-9]{64}"),
    token("heroku-key", "hrku-", r"HRKU-[A-Za-z0-9_-]{20,}"),
    token("cloudflare-origin-ca-key", "v1.0-", r"v1\.0-[0-9a-f]{24}-[0-9a-f]{146}"),
    token("netlify-token", "nfp_", r"nfp_[A-Za-z0-9]{36}"),
    token("render-key", "rnd_", r"rnd_[A-Za-z0-9]{32}"),
    token(
        "flyio-token", "fo1_ fm1 fm2_", r"fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/=_-]{100,}"
    ),
    token("databricks-token", "dapi", r"dapi[0-9a-f]{32}(?:-\d)?"),
    token("terraform-token", "atlasv1", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}"),
    token("vault-token", "hvs. hvb. hvr.", r"hv[sbr]\.[A-Za-z0-9_-]{24,}"),
    # A service token names its config between kind and secret: dp.st.prd.<secret>.
    token(
        "doppler-token",
        "dp.",
        r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44}",
    ),
    token("1password-token", "ops_eyj", r"ops_eyJ[A-Za-z0-9+/=_-]{50,}"),
    # The Secret Key of a 1Password account: "A3-", six groups.
    token(
        "1password-secret-key",
        "a3-",
        r"A3-[A-Z0-9]{6}-[A-Z0-9]{5,6}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}",
    ),
    token("pulumi-token", "pul-", r"pul-[a-f0-9]{40}"),
    token("supabase-token", "sbp_ sb_secret_", r"sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{20,}"),
    token("planetscale-token", "pscale_", r"pscale_(?:pw|tkn|oauth)_[A-Za-z0-9_.=-]{32,64}"),
    token("neon-key", "napi_", r"napi_[a-z0-9]{64}"),
    token("scaleway-key", "scw", r"SCW[A-Z0-9]{17}"),
    # Code hosts and package registries
    token(
        "github-token",
        "ghp_ gho_ ghu_ ghs_ ghr_ github_pat_",
        r"gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}",
    ),
    token(
        "gitlab-token",
        "glpat- gldt- glrt- glptt- glft- glimt- glagent- gloas- glcbt- glsoat-",
        r"gl(?:pat|dt|rt|ptt|ft|imt|agent|oas|cbt|soat|ffct)-[A-Za-z0-9_-]{20,}",
    ),
    token("gitlab-runner-token", "gr1348941", r"GR1348941[A-Za-z0-9_-]{20}"),
    token("bitbucket-app-password", "atbb", r"ATBB[A-Za-z0-9_=.-]{32}"),
    token("atlassian-token", "atatt3 atctt3", r"AT[AC]TT3[A-Za-z0-9_=-]{150,}"),
    token("npm-token", "npm_", r"npm_[A-Za-z0-9]{36}"),
    token("pypi-token", "pypi-", r"pypi-AgE[A-Za-z0-9_-]{50,}"),
    token("rubygems-key", "rubygems_", r"rubygems_[0-9a-f]{48}"),
    token("nuget-key", "oy2", r"oy2[a-z0-9]{43}"),
    token("docker-hub-token", "dckr_", r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}"),
    token("crates-token", "cio", r"cio[A-Za-z0-9]{32}"),
    token("jfrog-token", "akcp cmvmdgtu", r"AKCp[A-Za-z0-9]{69}|cmVmdGtu[A-Za-z0-9]{56}"),
    token("sonar-token", "sqp_ squ_ sqa_", r"sq[pua]_[0-9a-f]{40}"),
    token(
        "sentry-token", "sntrys_ sntryu_", r"sntryu_[0-9a-f]{64}|sntrys_eyJ[A-Za-z0-9+/=_-]{50,}"
    ),
    token("postman-key", "pmak-", r"PMAK-[0-9a-f]{24}-[0-9a-f]{34}"),
    # Work tools
    token("linear-key", "lin_api_ lin_oauth_", r"lin_(?:api|oauth)_[A-Za-z0-9]{40}"),
    token("notion-token", "secret_ ntn_", r"secret_[A-Za-z0-9]{43}|ntn_[0-9]{11}[A-Za-z0-9]{35}"),
    token("asana-token", "", r"[0-2]/\d{10,16}/\d{10,16}:[0-9a-f]{32}|0/[0-9a-f]{32}"),
    token("figma-token", "figd_ figu_", r"fig[du]_[A-Za-z0-9_-]{40}"),
    token("airtable-token", "pat", r"pat[A-Za-z0-9]{14}\.[0-9a-f]{64}"),
    token("dropbox-token", "sl.", r"sl\.(?:u\.)?[A-Za-z0-9_-]{130,}"),
    token("mapbox-token", "sk.eyj", r"sk\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{20,}"),
    token(
        "grafana-token",
        "glc_ glsa_",
        r"glc_eyJ[A-Za-z0-9+/=_-]{60,}|glsa_[A-Za-z0-9]{32}_[0-9a-f]{8}",
    ),
    token("newrelic-key", "nrak- nrii- nrjs- nraa-", r"NR(?:AK|II|JS|AA)-[A-Za-z0-9]{19,27}"),
    # Messaging, mail and payments
    token("twilio-key", "sk", r"SK[0-9a-fA-F]{32}"),
    token("sendgrid-key", "sg.", r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
    token("mailgun-key", "key-", r"key-[0-9a-f]{32}"),
    token("mailgun-key", "", r"[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}"),
    token("mailchimp-key", "-us", r"[0-9a-f]{32}-us\d{1,2}"),
    token("brevo-key", "xkeysib- xsmtpsib-", r"x(?:keysib|smtpsib)-[0-9a-f]{64}-[A-Za-z0-9]{16}"),
    token("resend-key", "re_", r"re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}"),
    token("telegram-bot-token", ":aa", r"(?:bot)?\d{8,10}:AA[A-Za-z0-9_-]{33}"),
    token("twilio-credentials", "ac", r"AC[0-9a-f]{32}:[0-9a-f]{32}"),
    token("okta-token", "ssws", r"(?<=SSWS )00[A-Za-z0-9_-]{40}"),
    token(
        "discord-bot-token",
        "",
        r"[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}",
    ),
    token("slack-token", "xox", r"xox(?:[abposer]|e\.xox[bp])-[A-Za-z0-9-]{10,}"),
    token("slack-app-token", "xapp-", r"xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+"),
    # Mercado Pago's access token: APP_USR- (or TEST-), the app's number, a date, a hex run and
    # the user's number.
    token(
        "mercadopago-access-token",
        "app_usr- test-",
        r"(?:APP_USR|TEST)-\d{12,19}-\d{6}-[0-9a-f]{32}-\d{6,12}",
    ),
    token("stripe-key", "sk_ rk_", r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    token("stripe-webhook-secret", "whsec_", r"whsec_[A-Za-z0-9+/=]{24,}"),
    token("square-token", "sq0 eaaa", r"sq0(?:atp|csp)-[A-Za-z0-9_-]{22,43}|EAAA[A-Za-z0-9_-]{60}"),
    token(
        "braintree-token",
        "access_token$",
        r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}",
    ),
    token("shopify-token", "shpat_ shpss_ shpca_ shppa_", r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"),
    token("razorpay-key", "rzp_", r"rzp_(?:live|test)_[A-Za-z0-9]{14}"),
    token(
        "plaid-token",
        "access-",
        r"access-(?:sandbox|development|production)-[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}",
    ),
    token("flutterwave-key", "flwseck", r"FLWSECK(?:_TEST)?-[0-9a-f]{32}-X"),
    token("facebook-token", "eaa", r"EAA[A-Za-z0-9]{90,}"),
    token("twitter-bearer-token", "aaaaaaaaaaaaaaaaaaaaa", r"A{20,}[A-Za-z0-9%]{30,}"),
    token("age-secret-key", "age-secret-key-1", r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    token("django-secret-key", "django-insecure-", r"django-insecure-[^\s'\"`]{30,}"),
    token("kubernetes-bootstrap-token", "token", r"[a-z0-9]{6}\.[a-z0-9]{16}"),
    token("mailersend-token", "mlsn.", r"mlsn\.[0-9a-f]{64}"),
    # OpenShift's OAuth access tokens: "sha256~" and 43 base64url characters (a digest is
    # written "sha256:").
    token("openshift-token", "sha256~", r"sha256~[A-Za-z0-9_-]{43}"),
    token("jwt", "eyj", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    # Networks, observability and deployment
    token(
        "tailscale-key",
        "tskey-",
        r"tskey-(?:(?:auth|api|client|scim|webhook)-)?[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}",
    ),
    # An ngrok authtoken or API key: an id, "_", a secret, each mixed-case with digits.
    token("ngrok-token", "", r"\d[A-Za-z0-9]{17,30}_[A-Za-z0-9]{17,25}", _ngrok),
    token("dynatrace-token", "dt0", r"dt0[a-z]\d{2}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"),
    token(
        "harness-token",
        "pat. sat.",
        r"(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}",
    ),
    token("scalingo-token", "tk-us-", r"tk-us-[A-Za-z0-9_-]{48}"),
    token("prefect-key", "pnu_ pnb_", r"pn[ub]_[A-Za-z0-9]{36}"),
    token(
        "launchdarkly-key",
        "api- sdk- mob-",
        r"(?:api|sdk|mob)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    ),
    token("clojars-token", "clojars_", r"CLOJARS_[A-Za-z0-9]{60}"),
    token("readme-key", "rdme_", r"rdme_[a-z0-9]{70}"),
    token("adafruit-key", "aio_", r"aio_[A-Za-z0-9]{28}"),
    # Content, forms, media and business tools
    token(
        "hubspot-token",
        "pat-",
        r"pat-(?:na|eu|ap)\d-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    ),
    token("contentful-token", "cfpat-", r"CFPAT-[A-Za-z0-9_-]{43}"),
    token("typeform-token", "tfp_", r"tfp_[A-Za-z0-9_.=-]{55,64}"),
    token("frameio-token", "fio-u-", r"fio-u-[A-Za-z0-9_=-]{64}"),
    token("twitch-token", "oauth:", r"oauth:[a-z0-9]{30}", _has_digit),
    token(
        "yandex-token",
        "y0_ y1_ y2_ y3_ aqvn t1.",
        r"y[0-3]_[A-Za-z0-9_-]{50,}|AQVN[A-Za-z0-9_-]{35,38}"
        r"|t1\.[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]{86}={0,2}",
        _has_digit,
    ),
    # Shipping and travel
    token("shippo-token", "shippo_", r"shippo_(?:live|test)_[0-9a-f]{40}"),
    token("easypost-key", "ezak eztk", r"EZ[AT]K[A-Za-z0-9]{54}"),
    token("duffel-token", "duffel_", r"duffel_(?:live|test)_[A-Za-z0-9_=-]{43}"),
    # A password hash as htpasswd and crypt(3) write it (Apache MD5, bcrypt, SHA-crypt, MD5):
    # whoever holds one can try guesses offline.
    token(
        "password-hash",
        "$apr1$ $2a$ $2b$ $2x$ $2y$ $1$ $5$ $6$",
        r"(?:\$(?:apr1|1)\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22}"
        r"|\$2[abxy]\$\d{2}\$[./A-Za-z0-9]{53}"
        r"|\$[56]\$(?:rounds=\d+\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{43,86})",
    ),
    # Webhook addresses: whoever has one can post as the bot.
    token(
        "slack-webhook",
        "hooks.slack.com",
        r"https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20,}",
    ),
    token(
        "discord-webhook",
        "discord",
        r"https?://(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]+",
    ),
    token(
        "teams-webhook",
        "webhook.office outlook.office logic.azure.com",
        r"https?://[\w.-]*(?:webhook\.office\.com|outlook\.office(?:365)?\.com)/webhook(?:b2)?/[^\s\"'<>`]+"
        r"|https?://[\w.-]+\.logic\.azure\.com[^\s\"'<>`]*sig=[^\s\"'<>`]+",
    ),
    token(
        "wecom-webhook",
        "qyapi.weixin.qq.com",
        r"https?://qyapi\.weixin\.qq\.com/cgi-bin/webhook/send\?key=[A-Za-z0-9-]+",
    ),
    token(
        "dingtalk-webhook",
        "dingtalk",
        r"https?://oapi\.dingtalk\.com/robot/send\?access_token=[A-Za-z0-9]+(?:&[^\s\"'<>`]*)?",
    ),
    token("dingtalk-secret", "sec", r"SEC[0-9a-f]{64}"),
    token(
        "feishu-webhook",
        "feishu larksuite",
        r"https?://open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/[A-Za-z0-9-]+",
    ),
    token(
        "zapier-webhook",
        "hooks.zapier.com",
        r"https?://hooks\.zapier\.com/hooks/catch/\d+/[A-Za-z0-9]+/?",
    ),
    token(
        "google-chat-webhook",
        "chat.googleapis.com",
        r"https?://chat\.googleapis\.com/v1/spaces/[^\s\"'<>`]*key=[^\s\"'<>`]+",
    ),
    token("mattermost-webhook", "/hooks/", r"https?://[^\s/\"'<>`]+/hooks/[a-z0-9]{26}"),
    # Last: a prefixed token of a service no rule above knows (see _generated).
    token(
        "token",
        "",
        # Not within a longer name ("pkg_resources-..."), nor before ".js" or ".com" (a
        # file's or a host's name).
        r"(?<![_.~-])[A-Za-z][A-Za-z0-9]{1,11}[_-](?:[A-Za-z0-9]+[_-]){0,3}[A-Za-z0-9]{8,}(?!\.\w)",
        _generated,
    ),
    # A bare run of letters and digits a generator made, with no prefix and no label: a
    # secret key pasted alone or passed to a client ("Credential(id, \"s0Vkf...\")"). Long
    # (28 or more), both cases and digits changing often (see random_body); not part of a path, a
    # URL, a file name or a longer token.
    token(
        "secret",
        "",
        # (Nor a name given a value: "PBESv1SHA1And3KeyTripleDESCBC = ...".)
        r"(?<![/+=.:@#$%&?_-])[A-Za-z0-9]{28,256}(?![/+=.@_-])(?!\s*=(?!=))",
        _bare_random,
    ),
)
