"""The web page of ``everbot-memory ui``: see and manage the memories in a browser.

It needs the ``ui`` extra (Starlette, Jinja2, uvicorn, python-multipart); importing this
package without them raises ``ModuleNotFoundError`` naming the one missing.
"""

from .app import Settings, create_app
from .server import serve

__all__ = ["Settings", "create_app", "serve"]
