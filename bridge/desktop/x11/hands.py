"""Whose hands are on an X display: XInput2 raw events (pointer motion, buttons, keys) that the bridge did not send
are the human's. On a thread and a connection of its own.

The bridge brackets its own input with a property on the root window (`_DBG_BRIDGE_INPUT` set before, deleted
after, from the connection that sends the XTest input). The server processes queued input before the next request of
any client, so every raw event of the bridge's input reaches this watcher between the two PropertyNotify events, and
everything outside the bracket came from someone else: a physical device, or another client's input.
"""

from __future__ import annotations

import contextlib
import select
import threading
from collections.abc import Callable

from Xlib import X, Xatom
from Xlib import display as xdisplay
from Xlib.ext import ge, xinput

from bridge.desktop.errors import DesktopError
from bridge.desktop.x11.display import open_display

ATOM = "_DBG_BRIDGE_INPUT"
RAW = {xinput.RawMotion: "pointer", xinput.RawButtonPress: "button", xinput.RawKeyPress: "key"}


def bracket(d: xdisplay.Display, active: bool) -> None:
    """Open (active) or close the bracket around the bridge's own input, on the connection that sends it."""
    root = d.screen().root
    atom = d.intern_atom(ATOM)
    if active:
        root.change_property(atom, Xatom.CARDINAL, 32, [1])
    else:
        root.delete_property(atom)
    d.sync()


class Hands:
    """Calls `on_human(kind)` (from its own thread) for each raw event outside the bridge's bracket."""

    def __init__(self, display: str, on_human: Callable[[str], None]) -> None:
        self.d = open_display(display)
        if not self.d.has_extension("XInputExtension"):
            self.d.close()
            raise DesktopError("This X display has no XInput2, so the bridge cannot tell the human's input from its "
                               "own.", code="desktop_unavailable")
        self.d.xinput_query_version()
        self.on_human = on_human
        self.atom = self.d.intern_atom(ATOM)
        root = self.d.screen().root
        root.change_attributes(event_mask=X.PropertyChangeMask)
        root.xinput_select_events([(xinput.AllMasterDevices, xinput.RawMotionMask | xinput.RawButtonPressMask
                                    | xinput.RawKeyPressMask)])
        self.d.sync()
        self._inside = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="dbg-desktop-hands", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            if not self.d.pending_events():
                readable, _, _ = select.select([self.d.fileno()], [], [], 0.2)
                if not readable:
                    continue
            try:
                ev = self.d.next_event()
            except Exception:  # the display went away: nothing left to watch
                return
            if ev.type == X.PropertyNotify and ev.atom == self.atom:
                self._inside = ev.state == X.PropertyNewValue
            elif ev.type == ge.GenericEventCode and getattr(ev, "evtype", None) in RAW and not self._inside:
                self.on_human(RAW[ev.evtype])

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(2)
        with contextlib.suppress(Exception):
            self.d.close()

