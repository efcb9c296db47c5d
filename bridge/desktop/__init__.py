"""The desktop_* family's backends, by name. Each is imported only when chosen, so platform libraries (python-xlib,
PyGObject, mss) load only when a desktop tool is first used.

The interface every backend implements is `bridge.desktop.backend.DesktopBackend`.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import sys
from collections.abc import Mapping
from typing import Any

from bridge.desktop.backend import (  # the interface (no platform imports)
    DesktopBackend,
    Shot,
)

__all__ = ["BACKENDS", "DesktopBackend", "Shot", "auto_backend", "is_import_string", "load_backend", "why_unavailable",
           "served"]

BACKENDS: dict[str, str] = {
    "auto": "",  # chosen from the platform by auto_backend()
    "x11": "bridge.desktop.x11.backend:X11Backend",
    "wayland": "bridge.desktop.wayland.backend:WaylandBackend",  # wlroots compositors that speak sway's IPC
    "macos": "bridge.desktop.unavailable:MacOSBackend",
    "windows": "bridge.desktop.unavailable:WindowsBackend",
}


def auto_backend(platform: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """By platform; on Linux, wayland inside a sway session (WAYLAND_DISPLAY and SWAYSOCK set), else x11."""
    platform = platform or sys.platform
    env = os.environ if env is None else env
    if platform == "darwin":
        return "macos"
    if platform.startswith("win") or platform == "cygwin":
        return "windows"
    if env.get("WAYLAND_DISPLAY") and env.get("SWAYSOCK"):
        return "wayland"
    return "x11"


def is_import_string(name: str) -> bool:
    """A backend named by the settings as module:Class (one of your own, e.g. the tests' fake desktop)."""
    return ":" in name


def load_backend(name: str) -> type[Any]:
    """The backend class for a name in BACKENDS ('auto' picks by platform), or for an import string module:Class."""
    from bridge.desktop.errors import DesktopError

    if name == "auto":
        name = auto_backend()
    spec = name if is_import_string(name) else BACKENDS.get(name)
    if not spec:
        raise DesktopError(f"Unknown desktop backend {name!r}; known: {', '.join(BACKENDS)}, or an import string "
                           "module:Class.", code="bad_arguments")
    module, _, attr = spec.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        if is_import_string(name):
            raise DesktopError(f"The desktop backend {name!r} (the desktop_backend setting) cannot load: {exc}. Name "
                               "a class as module:Class, or a backend of the table: "
                               f"{', '.join(BACKENDS)}.", code="desktop_unavailable") from exc
        raise DesktopError(f"The {name} desktop backend cannot load: {exc}. Install the desktop extra: "
                           "pip install 'dbg-bridge[desktop]' (and see `dbg-bridge doctor`).",
                           code="desktop_unavailable") from exc


#: What the x11 backend cannot start without: Python modules (the desktop extra) and, for the private display,
#: programs (Debian packages). Checked by name only: nothing is imported or started.
X11_MODULES = {"Xlib": "python-xlib", "mss": "mss"}
X11_PROGRAMS = ("Xvfb", "openbox", "dbus-daemon")


def why_unavailable(settings: Any) -> str | None:  # not `unavailable`: the submodule of that name would shadow it
    """Why the desktop_* tools cannot work here (so they are not registered), or None when the backend loads.
    `dbg-bridge doctor` prints this reason and the fix."""
    if not settings.desktop_enabled:
        return ("off (the default): turn it on with `dbg-bridge serve --desktop-enabled`, DBG_DESKTOP_ENABLED=1 or "
                "desktop_enabled = true in config.toml")
    name = auto_backend() if settings.desktop_backend == "auto" else settings.desktop_backend
    if is_import_string(name):  # a backend of one's own: it is served when it imports
        from bridge.desktop.errors import DesktopError

        try:
            load_backend(name)
        except DesktopError as exc:
            return str(exc)
        return None
    if name == "wayland":
        from bridge.desktop.wayland.session import APT_HINT, PROGRAMS

        needed = [p for p in PROGRAMS if settings.desktop_display == "private" or p not in ("sway", "dbus-daemon")]
        absent = [p for p in needed if shutil.which(p) is None]
        return f"programs for the Wayland backend missing: {', '.join(absent)} ({APT_HINT})" if absent else None
    if name != "x11":
        return f"no {name} backend yet (X11 and Wayland/wlroots only)"
    missing = [pkg for module, pkg in X11_MODULES.items() if importlib.util.find_spec(module) is None]
    if missing:
        return f"Python packages missing: {', '.join(missing)} (pip install 'dbg-bridge[desktop]')"
    if settings.desktop_display == "private":
        absent = [p for p in X11_PROGRAMS if shutil.which(p) is None]
        if absent:
            return (f"programs for the private desktop missing: {', '.join(absent)} (sudo apt-get install -y xvfb "
                    "openbox dbus)")
    return None


def served(settings: Any) -> bool:
    """Whether this bridge registers the desktop_* tools (and shows the cockpit's Desktop tab)."""
    return why_unavailable(settings) is None
