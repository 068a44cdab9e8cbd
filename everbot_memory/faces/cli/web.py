"""``everbot-memory ui``: the web page. Its stack (the ``ui`` extra) is imported only when
the command runs, so the command line starts as light as ever."""

from __future__ import annotations

import json
import webbrowser
from typing import TYPE_CHECKING, Annotated

import typer

from .app import (
    DEFAULT_FILE,
    FileOption,
    JsonOption,
    app,
    fail,
    lock_timeout,
    memory_at,
    needs_extra,
)

if TYPE_CHECKING:
    from ..web import Settings

__all__ = ["ui"]


@app.command()
def ui(
    file: FileOption = DEFAULT_FILE,
    port: Annotated[
        int,
        typer.Option(
            "--port",
            "-p",
            min=0,
            max=65535,
            help="The port on 127.0.0.1 (default 0: a free one).",
        ),
    ] = 0,
    no_browser: Annotated[
        bool,
        typer.Option("--no-browser", help="Print the address only; do not open a browser."),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Serve a page on 127.0.0.1 to see and manage the memories in a browser, until Ctrl-C.

    The address printed holds a random token: only it lets a browser in."""
    memory_at(file)
    try:
        from ..web import serve
    except ModuleNotFoundError as exc:
        raise needs_extra(exc, "the web page", "ui") from None

    def ready(settings: Settings) -> None:
        if as_json:
            typer.echo(json.dumps({"url": settings.url, "file": str(settings.path)}))
        else:
            typer.echo(f"everbot-memory: serving {settings.path} at {settings.url} (Ctrl-C stops)")
        if not no_browser:
            webbrowser.open(settings.url)

    try:
        serve(file, port, ready, lock_timeout())
    except OSError as exc:
        raise fail(f"cannot serve on 127.0.0.1:{port}: {exc.strerror or exc}") from None
    except KeyboardInterrupt:
        pass  # Ctrl-C is how the page is closed
