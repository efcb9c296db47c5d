"""The seat's devices on a headless compositor: a virtual pointer (wlr-virtual-pointer-unstable-v1) and a virtual
keyboard (virtual-keyboard-unstable-v1), held open by a minimal Wayland client on the compositor's socket.

A headless sway has no input device, so its seat has neither pointer nor keyboard and apps bind none: sway's
`seat - cursor` commands then move a cursor no client hears, and GTK reports no focus (a text view never says
`focused`). Held open as long as the desktop runs, these give the seat both capabilities; the pointer also sends
motion, buttons and wheel steps itself when asked.
"""

from __future__ import annotations

import os
import socket
import struct
import time

from bridge.desktop.errors import DesktopError
from bridge.desktop.wayland.wire import Connection, message

BTN = {"left": 0x110, "right": 0x111, "middle": 0x112}
#: A modifier's evdev key code and its bit in KEYMAP's modifier mask (Shift, Control, Mod1 = Alt, Mod4 = Super).
MOD_KEYS = {"shift": (42, 1), "ctrl": (29, 4), "alt": (56, 8), "logo": (125, 64)}
MANAGER = "zwlr_virtual_pointer_manager_v1"
KEYBOARDS = "zwp_virtual_keyboard_manager_v1"
#: A plain US keymap the compositor compiles with its own xkbcommon (wtype uploads its own per call).
KEYMAP = ('xkb_keymap { xkb_keycodes { include "evdev+aliases(qwerty)" }; xkb_types { include "complete" }; '
          'xkb_compatibility { include "complete" }; xkb_symbols { include "pc+us+inet(evdev)" }; };\n')


def _fixed(value: float) -> int:
    return int(round(value * 256))


class VirtualDevices:
    """One Wayland connection holding a virtual pointer and a virtual keyboard (use it from one thread)."""

    def __init__(self, runtime_dir: str, display: str, size: tuple[int, int]) -> None:
        self.conn = Connection(runtime_dir, display)
        self.size = size
        globals_ = self.conn.globals(3)
        found = [(name, version) for name, iface, version in globals_ if iface == MANAGER]
        if not found:
            self.conn.close()
            raise DesktopError("The compositor offers no wlr virtual pointer (zwlr_virtual_pointer_manager_v1), so "
                               "the bridge cannot move a pointer there. sway and other wlroots compositors do; GNOME "
                               "and KDE need the RemoteDesktop portal or libei (not built).", code="not_available")
        name, version = found[0]
        self.conn.bind(name, MANAGER, min(version, 1), 4)
        self._send(4, 0, struct.pack("<II", 0, 5))  # create_virtual_pointer(seat: null = the default) -> 5
        seats = [(n, v) for n, iface, v in globals_ if iface == "wl_seat"]
        keyboards = [(n, v) for n, iface, v in globals_ if iface == KEYBOARDS]
        # new ids must follow each other (2 registry, 3 the first roundtrip's callback, 4, 5, then 6...)
        self._cb = 6
        self.keyboard = bool(seats and keyboards)
        if self.keyboard:
            self.conn.bind(seats[0][0], "wl_seat", 1, 6)
            self.conn.bind(keyboards[0][0], KEYBOARDS, 1, 7)
            self._send(7, 0, struct.pack("<II", 6, 8))  # create_virtual_keyboard(seat 6) -> 8
            self._cb = 9
            keymap = KEYMAP.encode() + b"\0"
            fd = os.memfd_create("dbg-keymap")
            try:
                os.write(fd, keymap)
                body = struct.pack("<II", 1, len(keymap))  # format xkb_v1; the fd travels beside the message
                socket.send_fds(self.conn.sock, [message(8, 0, body)], [fd])
            finally:
                os.close(fd)
        self.conn.roundtrip(self._cb)  # the callback's id is free again once it is done: reused by every sync

    def _send(self, obj: int, opcode: int, args: bytes = b"") -> None:
        self.conn.send(obj, opcode, args)

    @staticmethod
    def _ms() -> int:
        return int(time.monotonic() * 1000) & 0xFFFFFFFF

    def _frame(self) -> None:
        self._send(5, 4)

    def move(self, x: int, y: int) -> None:
        w, h = self.size
        self._send(5, 1, struct.pack("<IIIII", self._ms(), max(0, min(int(x), w - 1)), max(0, min(int(y), h - 1)),
                                     w, h))
        self._frame()

    def button(self, button: str, down: bool) -> None:
        self._send(5, 2, struct.pack("<III", self._ms(), BTN[button], 1 if down else 0))
        self._frame()

    def wheel(self, dx: int, dy: int) -> None:
        """Wheel steps: dy > 0 scrolls down, dx > 0 right (15 units a step, as a mouse wheel)."""
        self._send(5, 5, struct.pack("<I", 0))  # axis_source: wheel
        for axis, steps in ((0, dy), (1, dx)):
            if steps:
                self._send(5, 3, struct.pack("<Ii", self._ms(), axis) + struct.pack("<i", _fixed(15 * steps)))
        self._frame()

    def hold(self, modifiers: list[str], down: bool) -> None:
        """Press (down) or release `modifiers` (MOD_KEYS names) on the virtual keyboard: the keys, then the
        seat's modifier state, which the focused app reads for the pointer's clicks in between."""
        if not self.keyboard:
            raise DesktopError("This compositor offers no virtual keyboard, so no modifier can be held for a click.",
                               code="not_available")
        mask = 0
        for name in modifiers:
            key, bit = MOD_KEYS[name]
            self._send(8, 1, struct.pack("<III", self._ms(), key, 1 if down else 0))  # key(time, key, state)
            mask |= bit
        self._send(8, 2, struct.pack("<IIII", mask if down else 0, 0, 0, 0))  # modifiers(depressed, ...)

    def sync(self) -> None:
        """Wait until the compositor has handled everything sent so far."""
        self.conn.roundtrip(self._cb)

    def close(self) -> None:
        self.conn.close()
