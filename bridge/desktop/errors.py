"""Desktop errors: each has a code and says what to do next (they become isError tool results)."""

from __future__ import annotations

from bridge.errors import BridgeError


class DesktopError(BridgeError):
    code = "desktop_error"


def not_available(platform: str) -> DesktopError:
    return DesktopError(
        f"Desktop tools are not available yet on this platform ({platform}): only the X11 backend (Linux, a private "
        "Xvfb desktop or an attached X display) is built. Use the page_* tools for the web app, or run the bridge on "
        "Linux for desktop_* tools.", code="not_available")
