"""Capture the input that happens on an X display with the RECORD extension, on a thread and two connections of its
own (RECORD's enable call blocks its connection until the context is disabled).

Events go to a sink as plain dicts, in the order the X server processed them:
  {"kind": "key", "down": bool, "key": "a" | "Enter" | "F4" | ..., "chars": [plain, shift, altgr, altgr+shift],
   "modifier": "ctrl" | "shift" | "alt" | "super" | "altgr" | "capslock" | None, "t": monotonic}
  {"kind": "button", "down": bool, "button": 1..7, "x": int, "y": int, "t": monotonic}
  {"kind": "tool", "active": bool, "t": monotonic}   the bridge's own input begins / ends (see `mark`)

Keycodes are read against a keymap kept in step with the stream: the ChangeKeyboardMapping requests any client sends
(XTest typing maps spare keycodes on the fly) are recorded too and applied in order.
"""

from __future__ import annotations

import contextlib
import struct
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from Xlib import XK, X
from Xlib import display as xdisplay
from Xlib.ext import record
from Xlib.protocol import rq

from bridge.desktop.errors import DesktopError
from bridge.desktop.keyboard.keysyms import char_of, key_name, keysym_name
from bridge.desktop.x11.display import open_display

NO_OPERATION = 127
CHANGE_KEYBOARD_MAPPING = 100
MODIFIER_KEYS = {
    "Control_L": "ctrl", "Control_R": "ctrl", "Shift_L": "shift", "Shift_R": "shift", "Alt_L": "alt", "Alt_R": "alt",
    "Meta_L": "alt", "Meta_R": "alt", "Super_L": "super", "Super_R": "super", "Hyper_L": "super", "Hyper_R": "super",
    "ISO_Level3_Shift": "altgr", "Mode_switch": "altgr", "Caps_Lock": "capslock",
}
def describe_key(syms: list[int]) -> dict[str, Any]:
    """What a keycode stands for: the name the tools use, the characters per level, and whether it is a modifier."""
    syms = [*syms, 0, 0, 0, 0, 0, 0]
    base = syms[0] or syms[1]
    plain = char_of(syms[0])
    shifted = char_of(syms[1]) if syms[1] else (plain.upper() if plain else None)
    return {"key": key_name(base), "chars": [plain, shifted, char_of(syms[4]), char_of(syms[5])],
            "modifier": MODIFIER_KEYS.get(keysym_name(base) or "")}


class Capture:
    """One RECORD context over two private connections. `start` returns once the server records; `stop` returns once
    every recorded event reached the sink."""

    def __init__(self, display: str, sink: Callable[[dict[str, Any]], None], marker_client: int) -> None:
        self.sink = sink
        self.marker_client = marker_client  # the resource-id base of the connection that sends the bridge's markers
        self.ctl = open_display(display)
        self.data = open_display(display)
        try:
            self._setup()
        except BaseException:
            self.close()
            raise
        self.thread = threading.Thread(target=self._run, name="dbg-record", daemon=True)

    def _setup(self) -> None:
        if not self.ctl.has_extension("RECORD"):
            raise DesktopError("This X display has no RECORD extension, so input cannot be recorded.",
                               code="not_available")
        info = self.ctl.display.info
        self.min_code = info.min_keycode
        self.keymap = [list(s) for s in self.ctl.get_keyboard_mapping(info.min_keycode,
                                                                      info.max_keycode - info.min_keycode + 1)]
        self.tool = False
        self.started = threading.Event()
        self.error: BaseException | None = None
        ranges = [{"core_requests": (0, 0), "core_replies": (0, 0), "ext_requests": (0, 0, 0, 0),
                   "ext_replies": (0, 0, 0, 0), "delivered_events": (0, 0), "device_events": (0, 0),
                   "errors": (0, 0), "client_started": False, "client_died": False, **r}
                  for r in ({"device_events": (X.KeyPress, X.ButtonRelease)},
                            {"core_requests": (CHANGE_KEYBOARD_MAPPING, CHANGE_KEYBOARD_MAPPING)},
                            {"core_requests": (NO_OPERATION, NO_OPERATION)})]
        self.context = self.ctl.record_create_context(0, [record.AllClients], ranges)
        self.ctl.sync()  # the context must exist on the server before the other connection enables it

    def start(self, timeout: float = 5.0) -> None:
        self.thread.start()
        if not self.started.wait(timeout) or self.error is not None:
            self.stop()
            raise DesktopError(f"The X server did not start recording within {timeout:g} s ({self.error}).",
                               code="desktop_error")

    def _run(self) -> None:
        try:
            self.data.record_enable_context(self.context, self._reply)
        except BaseException as exc:  # noqa: BLE001 - kept for start() to report; the thread just ends
            self.error = exc
        finally:
            self.started.set()

    def _reply(self, reply: Any) -> None:
        if reply.category == record.StartOfData:
            self.started.set()
            return
        data = bytes(reply.data)
        now = time.monotonic()
        if reply.category == record.FromClient and data:
            order = ">" if (sys.byteorder == "little") == bool(reply.client_swapped) else "<"
            if data[0] == NO_OPERATION and reply.id_base == self.marker_client:
                self.tool = not self.tool
                self.sink({"kind": "tool", "active": self.tool, "t": now})
            elif data[0] == CHANGE_KEYBOARD_MAPPING and len(data) >= 8:
                count, first, per = data[1], data[4], data[5]
                syms = struct.unpack(f"{order}{count * per}I", data[8:8 + 4 * count * per])
                for i in range(count):
                    at = first + i - self.min_code
                    if 0 <= at < len(self.keymap):
                        self.keymap[at] = list(syms[i * per:(i + 1) * per])
            return
        if reply.category != record.FromServer:
            return
        while len(data) >= 32:
            event, data = rq.EventField(None).parse_binary_value(data, self.data.display, None, None)
            kind = event.type & 0x7F
            if kind in (X.KeyPress, X.KeyRelease):
                at = event.detail - self.min_code
                syms = self.keymap[at] if 0 <= at < len(self.keymap) else []
                self.sink({"kind": "key", "down": kind == X.KeyPress, **describe_key(syms), "t": now})
            elif kind in (X.ButtonPress, X.ButtonRelease):
                self.sink({"kind": "button", "down": kind == X.ButtonPress, "button": event.detail,
                           "x": event.root_x, "y": event.root_y, "t": now})

    def stop(self) -> None:
        """Disable the context (the server sends what it holds, then EndOfData), wait for the thread, free it."""
        with contextlib.suppress(Exception):  # the display may be gone already
            self.ctl.record_disable_context(self.context)
            self.ctl.sync()
        if self.thread.is_alive():
            self.thread.join(5)
        with contextlib.suppress(Exception):
            self.ctl.record_free_context(self.context)
            self.ctl.sync()
        self.close()

    def close(self) -> None:
        for conn in (self.ctl, self.data):
            with contextlib.suppress(Exception):
                conn.close()


def mark(d: xdisplay.Display) -> None:
    """Tell a running capture that the bridge's own input begins or ends (a NoOperation request it recognises by the
    sending connection; the server keeps it in order with the XTest input sent on that connection)."""
    d.no_operation()
    d.flush()
