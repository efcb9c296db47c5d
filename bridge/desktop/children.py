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
          cwd: str | None = None, user: tuple[int, int] | None = None) -> subprocess.Popen[bytes]:
    """Start argv (never through a shell) as our child; it gets SIGTERM if the spawning thread dies first. `user`
    (uid, gid) runs it as that user (a root bridge's private Wayland desktop: sway refuses root)."""
    who: dict[str, object] = {"user": user[0], "group": user[1], "extra_groups": []} if user else {}
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115 - the child keeps its own copy
    try:
        return subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                pass_fds=tuple(pass_fds), preexec_fn=_die_with_parent,  # noqa: PLW1509 - one prctl
                                close_fds=True, **who)  # type: ignore[call-overload]
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
    """True once `pid` has left /proc; reaps it first if it is our (zombie) child, as orphans become with a
    subreaper."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass  # not (yet) our child: its parent reaps it, or it becomes ours when that parent exits
    return not os.path.exists(f"/proc/{pid}")


def reap_orphans(known: Iterable[int]) -> list[int]:
    """Reap the zombies among our direct children that are not `known` (processes we spawned and wait for): orphans
    a subreaper inherits (Chromium's crashpad handlers, after a browser quits) that would otherwise stay zombies as
    long as the bridge runs, and pass to whoever reaps for us after it."""
    keep, me, reaped = set(known), os.getpid(), []
    for name in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not name.isdigit() or int(name) in keep:
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                data = f.read()
        except OSError:
            continue
        state, ppid = data[data.rindex(b")") + 2:].split()[:2]
        if state == b"Z" and int(ppid) == me:
            try:
                os.waitpid(int(name), os.WNOHANG)
                reaped.append(int(name))
            except ChildProcessError:
                pass
    return reaped


def marked(marker: str) -> list[int]:
    """Processes whose environment holds `marker` (e.g. DBG_DESKTOP_SESSION=ab12): what a session started, even
    what D-Bus activated or an app daemonized away from its parent."""
    needle = marker.encode()
    out = []
    me = os.getpid()
    for name in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if name.isdigit() and int(name) != me:
            try:
                with open(f"/proc/{name}/environ", "rb") as f:
                    if needle in f.read().split(b"\0"):
                        out.append(int(name))
            except OSError:
                pass
    return out


def stop_tree(procs: list[subprocess.Popen[bytes]], timeout: float = 3.0, extra: Iterable[int] = ()) -> None:
    """SIGTERM `extra` pids, then each process and all its descendants (leaves first); wait (bounded), SIGKILL what
    is left, and reap every one that became our child."""
    pids: list[int] = []
    for pid in extra:
        for p in [*descendants(pid), pid]:
            if p not in pids:
                pids.append(p)
    for proc in procs:
        if proc.poll() is None:
            pids += [p for p in descendants(proc.pid) if p not in pids]
    owned = {proc.pid for proc in procs}
    pids = [p for p in pids if p not in owned and p != os.getpid()]
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    deadline = time.monotonic() + timeout
    killed = False
    while True:
        pids = [p for p in pids if not _gone(p)]
        if not pids and all(proc.poll() is not None for proc in procs):
            break
        if time.monotonic() > deadline:
            if killed:
                break
            killed = True
            deadline = time.monotonic() + 2
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
        time.sleep(0.01)
    for proc in procs:
        try:
            proc.wait(2)
        except subprocess.TimeoutExpired:
            pass
