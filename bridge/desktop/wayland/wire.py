"""The Wayland wire format, as much as the bridge's own small clients need: connect to the compositor's socket,
write requests, split what arrives into (object, opcode, body) messages, read the registry's globals."""

from __future__ import annotations

import os
import select
import socket
import struct
import time
from collections.abc import Callable

from bridge.desktop.errors import DesktopError

DISPLAY, REGISTRY = 1, 2  # wl_display is object 1; every client here asks for the registry as object 2


def string(text: str) -> bytes:
    data = text.encode() + b"\0"
    return struct.pack("<I", len(data)) + data + b"\0" * (-len(data) % 4)


def message(obj: int, opcode: int, args: bytes = b"") -> bytes:
    return struct.pack("<II", obj, ((8 + len(args)) << 16) | opcode) + args


def connect_unix(path: str, timeout: float, what: str, hint: str = "") -> socket.socket:
    """A connected Unix stream socket to `path`, or desktop_unavailable saying `what` does not answer."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
    except OSError as exc:
        sock.close()
        raise DesktopError(f"{what} does not answer ({exc.strerror}).{hint}", code="desktop_unavailable") from exc
    return sock


class Connection:
    """One client connection: requests out, messages in (read from one thread at a time)."""

    def __init__(self, runtime_dir: str, display: str, timeout: float = 5.0) -> None:
        path = display if display.startswith("/") else os.path.join(runtime_dir, display)
        self.sock = connect_unix(path, timeout, f"The Wayland socket {path}")
        self._buf = b""

    def send(self, obj: int, opcode: int, args: bytes = b"") -> None:
        self.sock.sendall(message(obj, opcode, args))

    def bind(self, name: int, interface: str, version: int, new_id: int) -> None:
        """wl_registry.bind of the global `name` as object `new_id`."""
        self.send(REGISTRY, 0, struct.pack("<I", name) + string(interface) + struct.pack("<II", version, new_id))

    def _whole(self) -> bool:
        return len(self._buf) >= 8 and len(self._buf) >= struct.unpack_from("<II", self._buf)[1] >> 16

    def ready(self, timeout: float) -> bool:
        """Whether a whole message can be read now, waiting up to `timeout` seconds for bytes to arrive."""
        if not self._whole() and select.select([self.sock], [], [], timeout)[0]:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise DesktopError("The compositor closed the Wayland connection.", code="desktop_stopped")
            self._buf += chunk
        return self._whole()

    def read(self) -> tuple[int, int, bytes]:
        """The next message (blocks up to the socket's timeout); wl_display.error raises."""
        while True:
            if self._whole():
                obj, word = struct.unpack_from("<II", self._buf)
                body, self._buf = self._buf[8:word >> 16], self._buf[word >> 16:]
                if obj == DISPLAY and word & 0xFFFF == 0:  # wl_display.error
                    _, code, length = struct.unpack_from("<III", body)
                    raise DesktopError(f"The compositor refused a request of the bridge: "
                                       f"{body[12:12 + length - 1]!r} (code {code}).", code="input_failed")
                return obj, word & 0xFFFF, body
            chunk = self.sock.recv(65536)
            if not chunk:
                raise DesktopError("The compositor closed the Wayland connection.", code="desktop_stopped")
            self._buf += chunk

    def roundtrip(self, callback: int, on_message: Callable[[int, int, bytes], None] = lambda *m: None,
                  timeout: float = 5.0) -> None:
        """wl_display.sync and read until its callback is done, handing every other message to `on_message`."""
        self.send(DISPLAY, 0, struct.pack("<I", callback))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            obj, opcode, body = self.read()
            if obj == callback and opcode == 0:
                return
            on_message(obj, opcode, body)
        raise DesktopError(f"The compositor did not answer a Wayland roundtrip within {timeout:g} s.",
                           code="desktop_timeout")

    def globals(self, callback: int) -> list[tuple[int, str, int]]:
        """Ask for the registry (object 2) and return its globals: (name, interface, version)."""
        self.send(DISPLAY, 1, struct.pack("<I", REGISTRY))
        found: list[tuple[int, str, int]] = []

        def on_message(obj: int, opcode: int, body: bytes) -> None:
            if obj == REGISTRY and opcode == 0:  # wl_registry.global
                name, length = struct.unpack_from("<II", body)
                (version,) = struct.unpack_from("<I", body, 8 + length + (-length % 4))
                found.append((name, body[8:8 + length - 1].decode(), version))

        self.roundtrip(callback, on_message)
        return found

    def close(self) -> None:
        self.sock.close()
