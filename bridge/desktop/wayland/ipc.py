"""sway's IPC (the i3 IPC protocol) over its Unix socket: `i3-ipc`, a length and a type, then JSON."""

from __future__ import annotations

import json
import struct
from typing import Any

from bridge.desktop.errors import DesktopError
from bridge.desktop.wayland.wire import connect_unix

MAGIC = b"i3-ipc"
RUN_COMMAND, GET_WORKSPACES, GET_OUTPUTS, GET_TREE, GET_VERSION, GET_SEATS = 0, 1, 3, 4, 7, 101
HEADER = struct.Struct("=6sII")


class Ipc:
    """One connection to the compositor (use it from one thread)."""

    def __init__(self, path: str, timeout: float = 10.0) -> None:
        self.path = path
        self.sock = connect_unix(path, timeout, f"The compositor's IPC socket {path}", " Is sway running (SWAYSOCK)?")

    def _recv(self, n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise DesktopError("The compositor closed its IPC connection.", code="desktop_stopped")
            buf += chunk
        return buf

    def call(self, kind: int, payload: str = "") -> Any:
        data = payload.encode()
        self.sock.sendall(HEADER.pack(MAGIC, len(data), kind) + data)
        magic, length, _ = HEADER.unpack(self._recv(HEADER.size))
        if magic != MAGIC:
            raise DesktopError("The compositor's IPC answered something that is not i3 IPC.", code="desktop_error")
        return json.loads(self._recv(length))

    def command(self, text: str) -> list[dict[str, Any]]:
        """Run sway commands; raise with the compositor's own words when one fails."""
        results = self.call(RUN_COMMAND, text)
        bad = [r for r in results if not r.get("success")]
        if bad:
            raise DesktopError(f"sway refused {text!r}: {bad[0].get('error') or bad}", code="action_failed")
        return results

    def tree(self) -> dict[str, Any]:
        return self.call(GET_TREE)

    def outputs(self) -> list[dict[str, Any]]:
        return self.call(GET_OUTPUTS)

    def version(self) -> dict[str, Any]:
        return self.call(GET_VERSION)

    def close(self) -> None:
        self.sock.close()
