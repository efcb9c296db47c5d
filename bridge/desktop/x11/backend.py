"""The X11 backend: a private Xvfb desktop (or an attached display), EWMH windows, XTest input, mss screenshots and
AT-SPI accessibility. Every platform import happens here or in the modules this one imports, never at bridge start."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any

from bridge.desktop import ocr
from bridge.desktop import session as sessions
from bridge.desktop.apps import Apps, LaunchedApps
from bridge.desktop.atspi.elements import AtspiElements
from bridge.desktop.backend import Shot
from bridge.desktop.errors import DesktopError

_ENV_KEYS = ("DISPLAY", "XAUTHORITY")


def parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(n) for n in text.lower().split("x")[:2])
    except ValueError:
        raise DesktopError(f"desktop_size {text!r} is not WIDTHxHEIGHT, e.g. 1280x800.", code="bad_arguments") from None
    return w, h


class X11Backend(AtspiElements, LaunchedApps):
    name = "x11"

    def __init__(self, settings: Any) -> None:
        self.settings = settings
        self.session: sessions.Session | None = None
        self._a11y: Any = None
        self._apps: Apps | None = None
        self._capture: Any = None
        self._hands: Any = None  # the watcher of the human's input (attached displays)
        self._acting = False  # inside the bracket around the bridge's own input
        self._temp: list[str] = []

    # ---- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        try:
            from bridge.desktop.screen import Screen
            from bridge.desktop.x11.input import Input
            from bridge.desktop.x11.display import open_display
            from bridge.desktop.x11.windows import Windows
        except ImportError as exc:
            raise DesktopError(f"The X11 desktop backend needs python-xlib and mss ({exc}): pip install -e "
                               "'.[desktop]' (see `dbg-bridge doctor`).", code="desktop_unavailable") from exc

        mode = self.settings.desktop_display
        if mode == "private":
            self.session = sessions.start_private(parse_size(self.settings.desktop_size),
                                                  monitors=self.settings.desktop_monitors,
                                                  scale=self.settings.desktop_scale)
        else:
            self.session = sessions.attach(mode)
        try:
            with self._display_env():
                self.d = open_display(self.session.display)
                self.screen = Screen(self.session.display)
                self.screen.size()  # connects now
            self.win = Windows(self.d)
            self.input = Input(self.d)
            if self.session.private and self.settings.desktop_monitors > 1:
                from bridge.desktop.x11.monitors import declare_side_by_side

                w, h = parse_size(self.settings.desktop_size)
                declare_side_by_side(self.session.env, self.settings.desktop_monitors, w, h,
                                     96 * self.settings.desktop_scale)
            if self.session.private:
                deadline = time.monotonic() + 10
                while self.win.wm_name() is None:
                    if time.monotonic() > deadline or not self.session.alive():
                        raise DesktopError("The window manager (openbox) did not come up on the private display.",
                                           code="desktop_failed")
                    time.sleep(0.01)
            self._apps = Apps(self.session.env, str(self.session.tmp) if self.session.tmp else None)
            self.a11y().spawn()
        except BaseException:
            self.stop()
            raise

    @contextlib.contextmanager
    def _display_env(self) -> Iterator[None]:
        """python-xlib and libX11 (mss) read XAUTHORITY when they connect: set it (and DISPLAY) only for that moment."""
        assert self.session is not None
        saved = {k: os.environ.get(k) for k in _ENV_KEYS}
        os.environ.update({k: self.session.env[k] for k in _ENV_KEYS if k in self.session.env})
        try:
            yield
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def stop(self) -> None:
        self.record_stop()
        self.stop_parts()
        for closer in ("screen", "d"):
            obj = self.__dict__.pop(closer, None)
            if obj is not None:
                with contextlib.suppress(Exception):  # the display may already be gone
                    obj.close()
        if self.session is not None:
            self.session.stop()
            self.session = None

    def alive(self) -> bool:
        return self.session is not None and self.session.alive()

    def info(self) -> dict[str, Any]:
        assert self.session is not None
        w, h = self.win.screen_size()
        a11y = importlib.util.find_spec("gi") is not None
        from bridge.desktop.x11.monitors import monitors

        return {"display": self.session.display, "private": self.session.private,
                "screen": {"width": w, "height": h}, "scale": self.scale(), "monitors": monitors(self.d),
                "windowManager": self.win.wm_name(),
                "accessibility": a11y, "ocr": ocr.available(), "input": "xtest"}

    def scale(self) -> float:
        """The session's scale factor: what a private desktop tells its apps, else the display's Xft.dpi / 96 (X11
        itself has none: screenshots and coordinates are in device pixels either way)."""
        assert self.session is not None
        if self.session.private:
            return float(self.settings.desktop_scale)
        return self.win.xft_scale()

    # ---- windows -----------------------------------------------------------------------------

    def windows(self) -> list[dict[str, Any]]:
        return self.win.list()

    def work_area(self) -> dict[str, int]:
        x, y, w, h = self.win.work_area()
        return {"x": x, "y": y, "width": w, "height": h}

    def activate_window(self, wid: int) -> bool:
        return self.win.activate(wid)

    def move_resize_window(self, wid: int, frame: dict[str, int]) -> dict[str, Any] | None:
        return self.win.move_resize(wid, frame)

    def set_window_state(self, wid: int, state: str) -> None:
        self.win.set_state(wid, state)

    def close_window(self, wid: int) -> None:
        self.win.close(wid)

    # ---- input -------------------------------------------------------------------------------

    def click(self, x: int, y: int, button: str, count: int, modifiers: list[str]) -> None:
        self.input.click(x, y, button, count, modifiers)

    def drag(self, x1: int, y1: int, x2: int, y2: int, button: str) -> None:
        self.input.drag(x1, y1, x2, y2, button)

    def scroll(self, x: int, y: int, dx: int, dy: int) -> None:
        self.input.scroll(x, y, dx, dy)

    def type_text(self, text: str) -> None:
        self.input.type_text(text)

    def chord(self, keys: list[str]) -> None:
        self.input.chord(keys)

    def pointer(self) -> tuple[int, int]:
        return self.input.pointer()

    # ---- recording ---------------------------------------------------------------------------

    def record_start(self, sink: Callable[[dict[str, Any]], None]) -> None:
        from bridge.desktop.x11.record import Capture

        assert self.session is not None
        self.record_stop()
        with self._display_env():
            capture = Capture(self.session.display, sink, self.d.display.info.resource_id_base)
        capture.start()
        self._capture = capture

    def record_stop(self) -> None:
        capture, self._capture = self._capture, None
        if capture is not None:
            capture.stop()

    def mark_tool_input(self) -> None:
        self._acting = not self._acting
        if self._capture is not None:
            from bridge.desktop.x11.record import mark

            mark(self.d)
        if self._hands is not None:
            from bridge.desktop.x11.hands import bracket

            bracket(self.d, self._acting)

    def watch_hands(self, on_human: Callable[[str], None]) -> None:
        from bridge.desktop.x11.hands import Hands

        assert self.session is not None
        with self._display_env():
            hands = Hands(self.session.display, on_human)
        hands.start()
        self._hands = hands

    def window_at(self, x: int, y: int) -> dict[str, Any] | None:
        return self.win.top_at(x, y)

    # ---- screen ------------------------------------------------------------------------------

    def screenshot(self, region: dict[str, int] | None) -> Shot:
        return self.screen.grab(region)

    # ---- accessibility -----------------------------------------------------------------------

    def a11y(self) -> Any:
        if self._a11y is None:
            from bridge.desktop.atspi.client import AtspiClient

            assert self.session is not None
            self._a11y = AtspiClient(self.session.env, self.session.log_path("atspi"))
        return self._a11y

    # ---- launch ------------------------------------------------------------------------------

    def temp_dir(self, prefix: str) -> str:
        """A private directory that lives as long as this desktop session (a browser profile, say)."""
        assert self.session is not None
        path = tempfile.mkdtemp(prefix=prefix, dir=str(self.session.tmp) if self.session.tmp else None)
        if not self.session.tmp:
            self._temp.append(path)
        return path
