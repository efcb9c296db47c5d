"""Apps the bridge launched: argv only (never a shell), only allowlisted programs, kept as our children and reaped."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from typing import Any

from bridge.desktop import children
from bridge.desktop.errors import DesktopError


def _which(program: str, path: str | None) -> str | None:
    if os.sep in program:
        return os.path.abspath(program) if os.path.isfile(program) and os.access(program, os.X_OK) else None
    return shutil.which(program, path=path)


def allowed_program(argv: list[str], allow: list[str], path: str | None) -> str:
    """The program to run (its path as found, not symlink-resolved: a venv's python must stay the venv's) if argv[0]
    is on the allowlist by name or by the file it resolves to; else a not_allowed error."""
    if not argv or not argv[0].strip():
        raise DesktopError("argv is empty: give the program and its arguments, e.g. [\"gedit\", \"notes.txt\"].",
                           code="bad_arguments")
    program = argv[0]
    found = _which(program, path)
    if found is None:
        raise DesktopError(f"Program {program!r} is not found on PATH.", code="not_found")
    real = os.path.realpath(found)
    for entry in allow:
        other = _which(entry, path)
        if entry == program or (other is not None and (other == found or os.path.realpath(other) == real)):
            return found
    shown = ", ".join(allow) if allow else "nothing yet"
    raise DesktopError(
        f"{program!r} is not on the launch allowlist ({shown}). The human adds programs with the desktop_allow "
        f"setting (e.g. DBG_DESKTOP_ALLOW={program} or --desktop-allow {program}); the bridge never runs a shell.",
        code="not_allowed")


@dataclass
class App:
    argv: list[str]
    proc: subprocess.Popen[bytes]
    log: str | None
    started: float = field(default_factory=time.time)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def row(self) -> dict[str, Any]:
        code = self.proc.poll()
        out: dict[str, Any] = {"pid": self.pid, "argv": self.argv, "running": code is None,
                               "startedAt": round(self.started, 3)}
        if code is not None:
            out["exitCode"] = code
        return out

    def log_tail(self, chars: int = 1500) -> str:
        if not self.log or not os.path.exists(self.log):
            return ""
        with open(self.log, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - chars))
            return f.read().decode("utf-8", "replace")


class Apps:
    """The launched apps of one desktop session."""

    def __init__(self, env: dict[str, str], log_dir: str | None, user: tuple[int, int] | None = None) -> None:
        self.env = env
        self.user = user  # (uid, gid) the apps run as (None: the bridge's own)
        self.log_dir = log_dir
        self.apps: dict[int, App] = {}

    def launch(self, argv: list[str], allow: list[str], cwd: str | None = None) -> App:
        real = allowed_program(argv, allow, self.env.get("PATH"))
        log = os.path.join(self.log_dir, f"app-{len(self.apps)}-{os.path.basename(real)}.log") if self.log_dir \
            else None
        try:
            proc = children.spawn([real, *argv[1:]], env=self.env, log=log, cwd=cwd, user=self.user)
        except OSError as exc:
            raise DesktopError(f"Could not start {argv[0]!r}: {exc.strerror}.", code="launch_failed") from exc
        app = App(argv=list(argv), proc=proc, log=log)
        self.apps[proc.pid] = app
        return app

    def get(self, pid: int) -> App | None:
        return self.apps.get(pid)

    def rows(self) -> list[dict[str, Any]]:
        return [a.row() for a in self.apps.values()]

    def stop(self, pid: int, timeout: float = 3.0) -> int | None:
        app = self.apps.get(pid)
        if app is None:
            return None
        children.stop_tree([app.proc], timeout=timeout)
        return app.proc.returncode

    def stop_all(self) -> None:
        live = [a.proc for a in self.apps.values() if a.proc.poll() is None]
        if live:
            children.stop_tree(live, timeout=2.0)


class LaunchedApps:
    """The launch half of a desktop backend, the same on X11 and Wayland: mixed into a backend that holds `_apps`
    (Apps, None until started), `session`, `_a11y` (whose helper process is not an orphan to reap), `_hands` (the
    human's-input watcher) and `_temp` (directories to remove)."""

    _apps: Apps | None
    session: Any
    _a11y: Any
    _hands: Any
    _temp: list[str]

    def stop_parts(self) -> None:
        """Stop what both backends hold the same way: the hands watcher, temp dirs, the AT-SPI helper, the apps."""
        hands, self._hands = self._hands, None
        if hands is not None:
            hands.stop()
        for path in self._temp:
            shutil.rmtree(path, ignore_errors=True)
        self._temp.clear()
        if self._a11y is not None:
            self._a11y.close()
            self._a11y = None
        if self._apps is not None:
            self._apps.stop_all()
            self._apps = None

    def _apps_or_fail(self) -> Apps:
        if self._apps is None:
            raise DesktopError("The desktop is not running.", code="desktop_unavailable")
        return self._apps

    def launch(self, argv: list[str], allow: list[str], cwd: str | None) -> dict[str, Any]:
        return self._apps_or_fail().launch(argv, allow, cwd).row()

    def apps(self) -> list[dict[str, Any]]:
        rows = self._apps_or_fail().rows()
        from bridge.desktop.children import reap_orphans

        session = [p.pid for p in self.session.procs.values()] if self.session is not None else []
        helper = getattr(getattr(self._a11y, "proc", None), "pid", None)
        reap_orphans([*session, *(r["pid"] for r in rows), *([helper] if helper else [])])
        return rows

    def app_log(self, pid: int) -> str:
        app = self._apps_or_fail().get(pid)
        return app.log_tail() if app else ""

    def stop_app(self, pid: int) -> dict[str, Any] | None:
        apps = self._apps_or_fail()
        if apps.get(pid) is None:
            return None
        apps.stop(pid)
        app = apps.get(pid)
        return app.row() if app else None
