"""The page's routes: each parses the request, makes one facade call, and renders a template.

    GET  /                          the memories: filter, sort, search; a form to add one
    POST /memories                  add a memory (Memory.remember)
    GET  /memories/{id}             a memory: content, score curve, history, edit and forget
    POST /memories/{id}             save its form (refused if it changed since it was shown)
    POST /memories/{id}/forget      delete it (refused likewise)
    GET  /health                    doctor's problems, dedupe's groups, failed jobs
    GET  /static/...                the style sheet (shipped in the package)

Writes answer with a redirect (303) to the page to read next, so a reload never sends a form
again.
"""

from __future__ import annotations

import math
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, urlencode

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from ...errors import EntryNotFoundError, EverbotMemoryError
from ...facade import web_views
from ...facade.memory import CATEGORIES, DEFAULT_LOCK_TIMEOUT, IMPORTANCES, Memory
from .chart import place
from .guard import CsrfError, Guard, allowed_hosts, checked_form

__all__ = ["Settings", "create_app"]

_HERE = Path(__file__).resolve().parent
_T = TypeVar("_T")


@dataclass(frozen=True)
class Settings:
    """What one server knows: the file, its port, and its two secrets."""

    path: Path
    port: int
    #: Required on every request (in the printed address, then a cookie).
    token: str
    #: Required in every form that writes.
    csrf: str
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT

    @classmethod
    def new(
        cls, path: str | os.PathLike[str], port: int, lock_timeout: float = DEFAULT_LOCK_TIMEOUT
    ) -> Settings:
        """Settings with fresh random secrets."""
        return cls(
            Path(path), port, secrets.token_urlsafe(32), secrets.token_urlsafe(32), lock_timeout
        )

    @property
    def url(self) -> str:
        """The address to open: the only one that lets a browser in."""
        return f"http://127.0.0.1:{self.port}/?token={self.token}"


def _day(value: date | None) -> str:
    # isoformat, not strftime: strftime writes the year 5 as "5", which reads as no date.
    if value is None:
        return ""
    return (value.date() if isinstance(value, datetime) else value).isoformat()


def _when(value: datetime | None) -> str:
    return "" if value is None else f"{_day(value)} {value:%H:%M}"


def create_app(settings: Settings) -> Guard:
    """The web app for ``settings``, behind its guard."""
    templates = Jinja2Templates(directory=str(_HERE / "templates"))
    templates.env.filters["when"] = _when
    templates.env.filters["day"] = _day
    templates.env.globals.update(
        csrf=settings.csrf,
        file=str(settings.path),
        categories=CATEGORIES,
        importances=IMPORTANCES,
        sorts=web_views.SORTS,
        score_text=web_views.score_text,
    )
    hosts = allowed_hosts(settings.port)

    def memory() -> Memory:
        return Memory(settings.path, lock_timeout=settings.lock_timeout)

    async def call(function: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        # The file and its lock are blocking I/O: off the event loop.
        return await run_in_threadpool(function, memory(), *args, **kwargs)

    def render(request: Request, name: str, status: int = 200, **context: Any) -> Response:
        return templates.TemplateResponse(request, name, context, status_code=status)

    def problem(request: Request, exc: Exception) -> Response:
        status = 400
        if isinstance(exc, EntryNotFoundError):
            status = 404
        elif isinstance(exc, CsrfError):
            status = 403
        return render(request, "message.html", status, message=str(exc))

    async def index(request: Request) -> Response:
        params = request.query_params
        section = params.get("section") or "all"
        if section not in ("all", "active", "archived"):
            section = "all"
        try:
            listing = await call(
                web_views.browse,
                section=section,
                category=params.get("category") or None,
                text=params.get("text", ""),
                query=params.get("q", ""),
                sort=params.get("sort") or "score",
                group=params.get("group") or None,
            )
        except EverbotMemoryError as exc:
            return problem(request, exc)
        return render(request, "list.html", listing=listing, params=params, section=section)

    async def add(request: Request) -> Response:
        try:
            form = await checked_form(request, settings.csrf, hosts)
            entry, _ = await call(
                Memory.remember,
                str(form.get("content", "")),
                str(form.get("category", "fact")),
                str(form.get("importance", "medium")),
                "web",
                str(form.get("group", "")).strip() or None,
            )
        except (CsrfError, EverbotMemoryError) as exc:
            return problem(request, exc)
        return RedirectResponse(f"/memories/{quote(entry.id)}?saved=added", status_code=303)

    async def show(request: Request) -> Response:
        try:
            page = await call(web_views.detail, request.path_params["entry_id"])
        except EverbotMemoryError as exc:
            return problem(request, exc)
        return render(
            request,
            "memory.html",
            page=page,
            chart=place(page.curve),
            saved=request.query_params.get("saved"),
        )

    async def save(request: Request) -> Response:
        entry_id = request.path_params["entry_id"]
        try:
            form = await checked_form(request, settings.csrf, hosts)
            raw_score = str(form.get("score", "")).strip()
            try:
                score = float(raw_score)
            except ValueError:
                score = math.nan
            if not math.isfinite(score):  # "nan" and "inf" read as floats
                raise EverbotMemoryError(
                    f"nothing updated: score {raw_score!r} is not a number from 0 to 1"
                ) from None
            await call(
                web_views.edit,
                entry_id,
                str(form.get("version", "")),
                content=str(form.get("content", "")),
                category=str(form.get("category", "")),
                score=score,
                group=str(form["group"]) if "group" in form else None,
            )
        except web_views.ChangedMeanwhileError as exc:
            return await _conflict(request, entry_id, exc, form)
        except (CsrfError, EverbotMemoryError) as exc:
            return problem(request, exc)
        return RedirectResponse(f"/memories/{quote(entry_id)}?saved=saved", status_code=303)

    async def _conflict(
        request: Request, entry_id: str, exc: EverbotMemoryError, form: Any
    ) -> Response:
        """The memory as it is now, the refusal, and the text the person sent (to copy)."""
        try:
            page = await call(web_views.detail, entry_id)
        except EntryNotFoundError:
            return render(request, "message.html", 409, message=str(exc))
        return render(
            request,
            "memory.html",
            409,
            page=page,
            chart=place(page.curve),
            error=str(exc),
            sent=str(form.get("content", "")),
        )

    async def forget(request: Request) -> Response:
        entry_id = request.path_params["entry_id"]
        try:
            form = await checked_form(request, settings.csrf, hosts)
            await call(web_views.forget, entry_id, str(form.get("version", "")))
        except web_views.ChangedMeanwhileError as exc:
            return render(request, "message.html", 409, message=str(exc))
        except (CsrfError, EverbotMemoryError) as exc:
            return problem(request, exc)
        return RedirectResponse("/?" + urlencode({"forgot": entry_id}), status_code=303)

    async def health(request: Request) -> Response:
        try:
            report = await call(web_views.health)
        except EverbotMemoryError as exc:
            return problem(request, exc)
        return render(request, "health.html", report=report)

    app = Starlette(
        routes=[
            Route("/", index, methods=["GET"]),
            Route("/memories", add, methods=["POST"]),
            Route("/memories/{entry_id}", show, methods=["GET"]),
            Route("/memories/{entry_id}", save, methods=["POST"]),
            Route("/memories/{entry_id}/forget", forget, methods=["POST"]),
            Route("/health", health, methods=["GET"]),
            Mount("/static", StaticFiles(directory=str(_HERE / "static")), name="static"),
        ]
    )
    return Guard(app, token=settings.token, port=settings.port)
