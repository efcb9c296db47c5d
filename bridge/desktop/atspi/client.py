"""The bridge's side of the AT-SPI helper: start it in the desktop session's environment, call its operations with a
bounded wait, and restart it (making old refs stale) if it dies or hangs."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bridge.desktop import children
from bridge.desktop.errors import DesktopError

INSTALL = ("Accessibility needs PyGObject and AT-SPI: pip install 'dbg-bridge[desktop]' and sudo apt-get install -y "
           "at-spi2-core gir1.2-atspi-2.0")


class AtspiClient:
    def __init__(self, env: dict[str, str], log: str | None, *, python: str = sys.executable,
                 root: str | None = None, user: tuple[int, int] | None = None) -> None:
        """`python`, `root` (where `bridge` is imported from) and `user` (uid, gid) run the helper as another user
        (AT-SPI apps that listen peer to peer let only their own user in)."""
        root = root or str(Path(__file__).resolve().parents[2])
        self.env = {**env, "PYTHONPATH": os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)}
        self.python = python
        self.user = user
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None
        self._n = 0
        self._buf = b""
        self._ready = False
        self.restarts = 0

    def spawn(self) -> None:
        """Start the helper without waiting for it (it loads PyGObject while the caller does other work)."""
        if self.proc is not None and self.proc.poll() is None:
            return
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115
        try:
            who: dict[str, Any] = {"user": self.user[0], "group": self.user[1], "extra_groups": []} if self.user else {}
            self.proc = subprocess.Popen([self.python, "-m", "bridge.desktop.atspi.host"], env=self.env,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=out,
                                         preexec_fn=children._die_with_parent, close_fds=True,  # noqa: PLW1509
                                         **who)
        finally:
            if self.log:
                out.close()  # type: ignore[union-attr]
        self._buf = b""
        self._ready = False

    def _start(self) -> None:
        self.spawn()
        ready = self._read(30.0)
        if not ready.get("ok"):
            self.close()
            raise DesktopError(f"{INSTALL} ({ready.get('message')}).", code="not_available")
        self._ready = True

    def _read(self, timeout: float) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                self.close()
                raise DesktopError(f"The accessibility helper did not answer within {timeout:g} s (an app may be "
                                   "hanging its accessibility bus). It was restarted: refs from before are stale; "
                                   "retry.", code="accessibility_timeout")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    self.close()
                    raise DesktopError("The accessibility helper exited (see the desktop logs). It restarts on the "
                                       "next call; refs from before are stale.", code="accessibility_error")
                self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return json.loads(line)

    def call(self, op: str, timeout: float = 30.0, **args: Any) -> Any:
        if self.proc is not None and self.proc.poll() is not None:
            self.restarts += 1  # the new helper tags its refs afresh: old ones fail as stale_ref
            self.close()
        if self.proc is None or not self._ready:
            self._start()
        assert self.proc is not None and self.proc.stdin is not None
        self._n += 1
        try:
            self.proc.stdin.write(json.dumps({"id": self._n, "op": op, "args": args}, ensure_ascii=False).encode()
                                  + b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.close()
            raise DesktopError("The accessibility helper went away; retry.", code="accessibility_error") from None
        while True:
            answer = self._read(timeout)
            if answer.get("id") == self._n:
                break
        if answer["ok"]:
            return answer["result"]
        raise DesktopError(answer["message"], code=answer["code"])

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            if proc.stdin:
                proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        if proc.stdout:
            proc.stdout.close()
