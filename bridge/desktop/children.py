"""Child processes that never outlive the bridge: spawned as our own children, stopped leaves-first, always reaped.

PID 1 in containers and sandboxes often reaps nothing, so an orphan (say the AT-SPI registry, which dbus-daemon
starts) would linger as a zombie. The bridge therefore becomes a *child subreaper* while a desktop runs: orphans of its
descendants are re-parented to it, and `stop_tree` reaps them.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_libc = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None


def become_subreaper() -> None:
    """Orphaned descendants are re-parented to this process (Linux) instead of to PID 1."""
    if _libc is not None:
        _libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _die_with_parent() -> None:  # runs in the child between fork and exec: keep it to one libc call
    if _libc is not None:
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def spawn(argv: list[str], *, env: dict[str, str], log: str | None = None, pass_fds: Iterable[int] = (),
          cwd: str | None = None) -> subprocess.Popen[bytes]:
    """Start argv (never through a shell) as our child; it gets SIGTERM if the spawning thread dies first."""
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115 - the child keeps its own copy
    try:
        return subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                pass_fds=tuple(pass_fds), preexec_fn=_die_with_parent, close_fds=True)
    finally:
        if log:
            out.close()  # type: ignore[union-attr]


def _ppid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    # the command name is in parentheses and may hold spaces: the fields after the last ')' are fixed
    return int(data[data.rindex(b")") + 2:].split()[1])


def descendants(root: int) -> list[int]:
    """Every live descendant of `root`, deepest first (from /proc; empty off Linux)."""
    if not os.path.isdir("/proc"):
        return []
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            parent = _ppid(int(name))
            if parent is not None:
                children.setdefault(parent, []).append(int(name))
    out: list[int] = []

    def walk(pid: int) -> None:
        for child in children.get(pid, []):
            walk(child)
            out.append(child)

    walk(root)
    return out


def _gone(pid: int) -> bool:
    """True once `pid` no longer exists; reaps it if it became our (zombie) child."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return True
    except ChildProcessError:
        pass  # not our child: its own parent reaps it
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return True
    return state in (b"Z", b"X") and _ppid(pid) != os.getpid()


def stop_tree(procs: list[subprocess.Popen[bytes]], timeout: float = 3.0) -> None:
    """SIGTERM each process and all its descendants (leaves first), wait (bounded), SIGKILL what is left, reap all."""
    pids: list[int] = []
    for proc in procs:
        if proc.poll() is None:
            pids += descendants(proc.pid)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    deadline = time.monotonic() + timeout
    waiting = [p for p in pids]
    while time.monotonic() < deadline:
        waiting = [p for p in waiting if not _gone(p)]
        if not waiting and all(proc.poll() is not None for proc in procs):
            break
        time.sleep(0.01)
    for pid in waiting:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait(5)
    end = time.monotonic() + 2
    while waiting and time.monotonic() < end:
        waiting = [p for p in waiting if not _gone(p)]
        time.sleep(0.01)

