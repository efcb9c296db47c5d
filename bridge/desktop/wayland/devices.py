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

BTN = {"left": 0x110, "right": 0x111, "middle": 0x112}
MANAGER = "zwlr_virtual_pointer_manager_v1"
KEYBOARDS = "zwp_virtual_keyboard_manager_v1"
#: A plain US keymap the compositor compiles with its own xkbcommon (wtype uploads its own per call).
KEYMAP = ('xkb_keymap { xkb_keycodes { include "evdev+aliases(qwerty)" }; xkb_types { include "complete" }; '
          'xkb_compatibility { include "complete" }; xkb_symbols { include "pc+us+inet(evdev)" }; };\n')


def _string(text: str) -> bytes:
    data = text.encode() + b"\0"
    return struct.pack("<I", len(data)) + data + b"\0" * (-len(data) % 4)


def _fixed(value: float) -> int:
    return int(round(value * 256))


class VirtualDevices:
    """One Wayland connection holding a virtual pointer and a virtual keyboard (use it from one thread)."""

    def __init__(self, runtime_dir: str, display: str, size: tuple[int, int]) -> None:
        path = display if display.startswith("/") else os.path.join(runtime_dir, display)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(5)
        try:
            self.sock.connect(path)
        except OSError as exc:
            self.sock.close()
            raise DesktopError(f"The Wayland socket {path} does not answer ({exc.strerror}).",
                               code="desktop_unavailable") from exc
        self.size = size
        self._buf = b""
        self._send(1, 1, struct.pack("<I", 2))  # wl_display.get_registry -> 2
        globals_ = self._roundtrip(3)
        found = [(name, version) for name, iface, version in globals_ if iface == MANAGER]
        if not found:
            self.sock.close()
            raise DesktopError("The compositor offers no wlr virtual pointer (zwlr_virtual_pointer_manager_v1), so "
                               "the bridge cannot move a pointer there. sway and other wlroots compositors do; GNOME "
                               "and KDE need the RemoteDesktop portal or libei (not built).", code="not_available")
        name, version = found[0]
        self._send(2, 0, struct.pack("<I", name) + _string(MANAGER) + struct.pack("<II", min(version, 1), 4))
        self._send(4, 0, struct.pack("<II", 0, 5))  # create_virtual_pointer(seat: null = the default) -> 5
        seats = [(n, v) for n, iface, v in globals_ if iface == "wl_seat"]
        keyboards = [(n, v) for n, iface, v in globals_ if iface == KEYBOARDS]
        # new ids must follow each other (2 registry, 3 the first roundtrip's callback, 4, 5, then 6...)
        self._cb = 6
        if seats and keyboards:
            self._send(2, 0, struct.pack("<I", seats[0][0]) + _string("wl_seat") + struct.pack("<II", 1, 6))
            self._send(2, 0, struct.pack("<I", keyboards[0][0]) + _string(KEYBOARDS) + struct.pack("<II", 1, 7))
            self._send(7, 0, struct.pack("<II", 6, 8))  # create_virtual_keyboard(seat 6) -> 8
            self._cb = 9
            keymap = KEYMAP.encode() + b"\0"
            fd = os.memfd_create("dbg-keymap")
            try:
                os.write(fd, keymap)
                body = struct.pack("<II", 1, len(keymap))  # format xkb_v1; the fd travels beside the message
                socket.send_fds(self.sock, [struct.pack("<II", 8, ((8 + len(body)) << 16) | 0) + body], [fd])
            finally:
                os.close(fd)
        self._roundtrip(self._cb)  # the callback's id is free again once it is done: reused by every sync

    def _send(self, obj: int, opcode: int, args: bytes = b"") -> None:
        self.sock.sendall(struct.pack("<II", obj, ((8 + len(args)) << 16) | opcode) + args)

    def _roundtrip(self, callback: int) -> list[tuple[int, str, int]]:
        """wl_display.sync and read events until its callback is done; the registry's globals seen meanwhile."""
        self._send(1, 0, struct.pack("<I", callback))
        globals_: list[tuple[int, str, int]] = []
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            while len(self._buf) >= 8:
                obj, word = struct.unpack_from("<II", self._buf)
                size, opcode = word >> 16, word & 0xFFFF
                if len(self._buf) < size:
                    break
                body, self._buf = self._buf[8:size], self._buf[size:]
                if obj == 1 and opcode == 0:  # wl_display.error
                    _, code, length = struct.unpack_from("<III", body)
                    raise DesktopError(f"The compositor refused the virtual pointer: {body[12:12 + length - 1]!r} "
                                       f"(code {code}).", code="input_failed")
                if obj == 2 and opcode == 0:  # wl_registry.global
                    gname, length = struct.unpack_from("<II", body)
                    iface = body[8:8 + length - 1].decode()
                    (gversion,) = struct.unpack_from("<I", body, 8 + length + (-length % 4))
                    globals_.append((gname, iface, gversion))
                if obj == callback and opcode == 0:
                    return globals_
            chunk = self.sock.recv(65536)
            if not chunk:
                raise DesktopError("The compositor closed the Wayland connection.", code="desktop_stopped")
            self._buf += chunk
        raise DesktopError("The compositor did not answer a Wayland roundtrip within 5 s.", code="desktop_timeout")

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

    def sync(self) -> None:
        """Wait until the compositor has handled everything sent so far."""
        self._roundtrip(self._cb)

    def close(self) -> None:
        self.sock.close()
