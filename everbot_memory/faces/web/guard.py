"""The page's locks: only this machine, only with the token, only forms the page made.

Every request must name the server as ``127.0.0.1:PORT`` or ``localhost:PORT`` in its Host
header, so a web site whose name was pointed at 127.0.0.1 (DNS rebinding) is refused. Every
request must carry the token: in the address the command printed (``?token=...``), which is
then kept in an HttpOnly, SameSite=Strict cookie and taken out of the address, or in that
cookie. Every write must send the CSRF token the page put in its form, and must not come from
another origin. Every answer forbids framing, scripts and outside assets, and is not cached.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable
from urllib.parse import urlencode

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["COOKIE", "CsrfError", "Guard", "allowed_hosts", "checked_form", "cookie_name"]

#: The cookie that keeps the token once the printed address was opened (its name ends with
#: the port: browsers share cookies across a host's ports, and two pages may be open at once).
COOKIE = "everbot_memory_token"
#: Methods the page uses; anything else is refused.
_METHODS = {"GET", "HEAD", "POST"}
_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'none'; style-src 'self'; img-src 'self'; "
        b"form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    # The first address holds the token: never send it to another site. (``no-referrer``
    # would make browsers send ``Origin: null`` with the page's own forms.)
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]


def allowed_hosts(port: int) -> frozenset[str]:
    """The Host headers the server answers to."""
    return frozenset({f"127.0.0.1:{port}", f"localhost:{port}"})


def cookie_name(port: int) -> str:
    """The name of the token's cookie for the server on ``port``."""
    return f"{COOKIE}_{port}"


def _same(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


def _refuse(message: str, status: int = 403) -> Response:
    return PlainTextResponse(f"everbot-memory: {message}\n", status_code=status)


class Guard:
    """ASGI middleware: the Host check, the token check, and safe headers on every answer."""

    def __init__(self, app: ASGIApp, *, token: str, port: int) -> None:
        self.app = app
        self.token = token
        self.hosts = allowed_hosts(port)
        self.cookie = cookie_name(port)

    def check(self, request: Request) -> Response | None:
        """The refusal for ``request``, or None to let it through."""
        if request.headers.get("host", "") not in self.hosts:
            return _refuse("unknown Host header: open the address everbot-memory ui printed")
        if request.method not in _METHODS:
            return _refuse(f"method {request.method} is not used here", 405)
        given = request.query_params.get("token")
        if given is not None:
            if not _same(given, self.token):
                return _refuse("wrong token: open the address everbot-memory ui printed")
            # Keep the token in a cookie and take it out of the address (history, bookmarks).
            rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
            target = request.url.path + (f"?{urlencode(rest)}" if rest else "")
            response = RedirectResponse(target, status_code=303)
            response.set_cookie(self.cookie, self.token, httponly=True, samesite="strict", path="/")
            return response
        if not _same(request.cookies.get(self.cookie), self.token):
            return _refuse("no token: open the address everbot-memory ui printed")
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_safely(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_HEADERS]
            await send(message)

        refusal = self.check(Request(scope))
        if refusal is not None:
            await refusal(scope, receive, send_safely)
            return
        await self.app(scope, receive, send_safely)


class CsrfError(Exception):
    """A write without the page's CSRF token, or from another origin."""


async def checked_form(request: Request, csrf: str, hosts: Iterable[str]) -> FormData:
    """The form of a write, once its CSRF token and its origin are checked; raises
    :class:`CsrfError` otherwise."""
    origin = request.headers.get("origin")
    if origin is not None and origin not in {f"http://{host}" for host in hosts}:
        raise CsrfError(f"a form from another origin ({origin}) was refused")
    form = await request.form()
    given = form.get("csrf")
    if not isinstance(given, str) or not _same(given, csrf):
        raise CsrfError("the form's CSRF token is missing or wrong: reload the page and retry")
    return form
