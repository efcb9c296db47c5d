"""The desktop_* family's backends, by name. Each is imported only when chosen, so platform libraries (python-xlib,
PyGObject, mss) load only when a desktop tool is first used.

The interface every backend implements is `bridge.desktop.backend.DesktopBackend`.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from bridge.desktop.backend import (  # the interface (no platform imports)
    DesktopBackend,
    Shot,
)

__all__ = ["BACKENDS", "DesktopBackend", "Shot", "auto_backend", "load_backend"]

BACKENDS: dict[str, str] = {
    "auto": "",  # chosen from the platform by auto_backend()
    "x11": "bridge.desktop.x11:X11Backend",
    "macos": "bridge.desktop.unavailable:MacOSBackend",
    "windows": "bridge.desktop.unavailable:WindowsBackend",
}


def auto_backend(platform: str | None = None) -> str:
    platform = platform or sys.platform
    if platform == "darwin":
        return "macos"
    if platform.startswith("win") or platform == "cygwin":
        return "windows"
    return "x11"


def load_backend(name: str) -> type[Any]:
    """The backend class for a name in BACKENDS ('auto' picks by platform)."""
    from bridge.desktop.errors import DesktopError

    if name == "auto":
        name = auto_backend()
    spec = BACKENDS.get(name)
    if not spec:
        raise DesktopError(f"Unknown desktop backend {name!r}; known: {', '.join(BACKENDS)}.", code="bad_arguments")
    module, _, attr = spec.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except ImportError as exc:
        raise DesktopError(f"The {name} desktop backend cannot load: {exc}. Install the desktop extra: "
                           "pip install 'dbg-bridge[desktop]' (and see `dbg-bridge doctor`).",
                           code="desktop_unavailable") from exc
