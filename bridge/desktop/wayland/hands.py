"""Whose hands are on a Wayland seat: the compositor's idle notifications. A Wayland client never sees another
client's input, but it may ask to be told when the seat goes idle and when input resumes (ext-idle-notify-v1, or
KDE's older org_kde_kwin_idle that sway 1.7 offers). With a timeout of a few milliseconds, `resumed` comes at
nearly every input event; outside the bridge's own input it is the human's. On a thread and a connection of its own.

The bridge brackets its own input (`bracket(True)` before, `bracket(False)` after it was sent). Closing the bracket
is a roundtrip on this connection: the compositor handled the bridge's input before the roundtrip's request, so a
`resumed` it caused is read before the roundtrip's answer, inside the bracket. What is seen: a pointer motion (a
device's, a virtual pointer's or `seat - cursor set`), a key (a keyboard's or a virtual keyboard's, e.g. wtype);
sway does not count `seat - cursor press|release` as activity.
"""

from __future__ import annotations

import contextlib
import struct
import threading
from collections.abc import Callable

from bridge.desktop.errors import DesktopError
from bridge.desktop.wayland.wire import Connection

#: The pause (ms) after which input counts as a new touch of the seat. So short that a mouse's motion at 125 Hz
#: (8 ms apart) arrives as one `resumed` per event; only input within this long after the bridge's own goes unseen
#: (until the human's next pause). At most 200 idle/resumed pairs a second reach the watcher.
PAUSE_MS = 5
#: Object ids: new ids must follow each other (2 is the registry); the callback's is free again once it is done.
CALLBACK, SEAT, NOTIFIER, NOTIFICATION = 3, 4, 5, 6
IDLE_PROTOCOLS = ("ext_idle_notifier_v1", "org_kde_kwin_idle")


class Hands:
    """Calls `on_human('pointer or key')` (from its own thread) for each `resumed` outside the bridge's bracket."""

    def __init__(self, runtime_dir: str, display: str, on_human: Callable[[str], None],
                 pause_ms: int = PAUSE_MS) -> None:
        self.conn = Connection(runtime_dir, display)
        self.on_human = on_human
        try:
            globals_ = self.conn.globals(CALLBACK)
            by_name = {iface: name for name, iface, _ in globals_}
            protocol = next((p for p in IDLE_PROTOCOLS if p in by_name), None)
            if protocol is None or "wl_seat" not in by_name:
                raise DesktopError("This compositor offers no idle notifications (ext-idle-notify-v1 or "
                                   "org_kde_kwin_idle), so the bridge cannot tell the human's input from its own.",
                                   code="desktop_unavailable")
            self.conn.bind(by_name["wl_seat"], "wl_seat", 1, SEAT)
            self.conn.bind(by_name[protocol], protocol, 1, NOTIFIER)
            if protocol == "ext_idle_notifier_v1":  # get_idle_notification(id, timeout, seat)
                self.conn.send(NOTIFIER, 1, struct.pack("<III", NOTIFICATION, pause_ms, SEAT))
            else:  # org_kde_kwin_idle.get_idle_timeout(id, seat, timeout)
                self.conn.send(NOTIFIER, 0, struct.pack("<III", NOTIFICATION, SEAT, pause_ms))
            self.conn.roundtrip(CALLBACK)
        except BaseException:
            self.conn.close()
            raise
        self.protocol = protocol
        self._inside = False
        self._synced = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="dbg-desktop-hands", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def bracket(self, active: bool, timeout: float = 5.0) -> None:
        """Open (active) or close the bracket around the bridge's own input; closing waits for the roundtrip."""
        if active:
            self._inside = True
            return
        if not self._thread.is_alive():  # the compositor went away: no roundtrip to wait for
            self._inside = False
            return
        self._synced.clear()
        self.conn.send(1, 0, struct.pack("<I", CALLBACK))  # wl_display.sync; its done closes the bracket
        if not self._synced.wait(timeout):
            self._inside = False  # the compositor hangs: stop ignoring input

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                if not self.conn.ready(0.2):
                    continue
                obj, opcode, _ = self.conn.read()
            except (DesktopError, OSError):  # the compositor went away: nothing left to watch
                return
            if obj == CALLBACK and opcode == 0:
                self._inside = False
                self._synced.set()
            elif obj == NOTIFICATION and opcode == 1 and not self._inside:  # resumed
                self.on_human("pointer or key")

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(2)
        with contextlib.suppress(OSError):
            self.conn.close()
