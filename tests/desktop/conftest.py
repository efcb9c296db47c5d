"""Desktop fixtures: one private desktop (Xvfb + openbox + a private D-Bus) for the test session, driven through the
desktop_* tool handlers in-process; a fresh GTK test app per test. Every wait is a bounded poll."""

from __future__ import annotations

import os
import struct
import sys
import typing
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from bridge.desktop import children
from bridge.desktop.errors import DesktopError
from bridge.desktop.service import Desktop
from bridge.desktop.session import MARKER
from bridge.settings import Settings
from bridge.tools import desktop as tools
from tests.support import run_async

APPS = Path(__file__).resolve().parent / "apps"
GTK_APP = [sys.executable, str(APPS / "gtk_app.py")]
TK_APP = [sys.executable, str(APPS / "tk_app.py")]
# real apps from Debian's archive, one per toolkit (scripts/test.sh installs them)
REAL_APPS = ["gnome-calculator", "qt6ct", "galculator"]


class Desk:
    """Calls desktop_* tool handlers the way the MCP server does (minus JSON), on one private desktop."""

    def __init__(self, **settings: Any) -> None:
        self.service = Desktop(Settings(**{"desktop_allow": [sys.executable, *REAL_APPS], **settings}))

    def __call__(self, tool: str, **args: Any) -> Any:
        handler = getattr(tools, tool)
        hints = typing.get_type_hints(handler, include_extras=True)
        # validate arguments into their declared types, as the MCP server does (dicts become Selector, Place…)
        args = {k: TypeAdapter(hints[k]).validate_python(v) for k, v in args.items()}
        return run_async(handler(self.service, **args), timeout=60)

    def error(self, tool: str, **args: Any) -> DesktopError:
        """Call a tool that must fail; return its error (code, message)."""
        with pytest.raises(DesktopError) as info:
            self(tool, **args)
        return info.value

    def launch(self, argv: list[str] | None = None, *extra: str) -> dict[str, Any]:
        return self("desktop_launch_app", argv=[*(argv or GTK_APP), *extra])

    def wait_accessible(self, pid: int, timeout: float = 30) -> None:
        """Until the app's accessibility tree is registered (a loaded machine can take longer than launch's grace)."""
        from tests.support import wait_until

        wait_until(lambda: pid in self.service.run_sync(lambda b: b.accessible_pids()), timeout,
                   what=f"pid {pid}'s accessibility tree")

    def marker(self) -> str | None:
        b = self.service.backend
        return f"{MARKER}={b.session.env[MARKER]}" if b is not None and b.session is not None else None

    def close(self) -> None:
        self.service.close()


@pytest.fixture(scope="session")
def desk() -> Iterator[Desk]:
    desk = Desk()
    desk("desktop_status")  # starts the private desktop
    marker = desk.marker()
    assert marker
    yield desk
    desk.close()
    assert children.marked(marker) == [], "processes of the private desktop outlived it"


@pytest.fixture
def app(desk: Desk) -> Iterator[dict[str, Any]]:
    """A fresh GTK test app: {pid, window (id), title, launched answer}; quit (and reaped) after the test."""
    title = f"Test App {os.urandom(3).hex()}"
    got = desk.launch(GTK_APP, "--title", title)
    win = got["windows"][0]
    yield {"pid": got["app"]["pid"], "window": win["id"], "title": title, "launched": got}
    try:
        desk("desktop_quit_app", pid=got["app"]["pid"], timeout=3)
    except DesktopError:
        pass


def png_pixels(png: bytes) -> tuple[int, int, bytes]:
    """Decode an 8-bit RGB/RGBA PNG (what mss writes) into (width, height, raw rows without filter bytes)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    height = channels = 0
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        data = png[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", data[:10])
            assert depth == 8
            channels = {2: 3, 6: 4}[color]
        elif kind == b"IDAT":
            idat += data
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride if f else 0):  # mss writes filter 0 only: that path is a plain copy
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 0xFF
            elif f == 2:
                line[i] = (line[i] + b) & 0xFF
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, b"".join(rows)
