"""Serving the page on this machine only: a socket bound to 127.0.0.1, uvicorn on it."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable

import uvicorn

from ...facade.memory import DEFAULT_LOCK_TIMEOUT
from .app import Settings, create_app

__all__ = ["HOST", "bind", "serve"]

#: The only address the page is served on.
HOST = "127.0.0.1"


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:``port`` (0: a free port, chosen by the system)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
        sock.listen(64)
    except OSError:
        sock.close()
        raise
    return sock


def serve(
    path: str | os.PathLike[str],
    port: int = 0,
    ready: Callable[[Settings], None] | None = None,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
) -> None:
    """Serve the memory at ``path`` until interrupted; ``ready`` gets the settings (its
    ``url`` is the address to open) once the socket listens."""
    sock = bind(port)
    settings = Settings.new(path, sock.getsockname()[1], lock_timeout)
    config = uvicorn.Config(
        create_app(settings),
        log_level="warning",
        access_log=False,
        # The page is its own: no proxy sits in front of it.
        proxy_headers=False,
        server_header=False,
    )
    server = uvicorn.Server(config)
    if ready is not None:
        ready(settings)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
