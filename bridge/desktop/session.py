"""The private desktop: Xvfb + openbox + a private D-Bus session bus, all children of the bridge, or an attached display.

AT-SPI needs no start of its own: the first GTK/Qt app asks the private bus for `org.a11y.Bus`, which activates the
AT-SPI launcher and registry; they exit with that bus.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bridge.desktop import children
from bridge.desktop.errors import DesktopError

#: Programs the private desktop needs, and the Debian packages that hold them.
PROGRAMS = {"Xvfb": "xvfb", "openbox": "openbox", "dbus-daemon": "dbus"}
MARKER = "DBG_DESKTOP_SESSION"  # in the environment of every process a private session starts
APT_HINT = ("sudo apt-get install -y xvfb openbox x11-utils xdotool at-spi2-core dbus gir1.2-atspi-2.0 "
            "gir1.2-gtk-3.0")


def _xauthority(path: Path, cookie: bytes) -> None:
    """An Xauthority file with one MIT-MAGIC-COOKIE-1 for any display: as FamilyWild (libX11) and as FamilyLocal
    for this host (python-xlib knows no FamilyWild)."""
    def field_(b: bytes) -> bytes:
        return len(b).to_bytes(2, "big") + b

    def entry(family: int, address: bytes) -> bytes:
        return family.to_bytes(2, "big") + field_(address) + field_(b"") + field_(b"MIT-MAGIC-COOKIE-1") + field_(cookie)

    path.write_bytes(entry(256, socket.gethostname().encode()) + entry(65535, b""))
    path.chmod(0o600)


def _read_line(fd: int, proc: subprocess.Popen[bytes], timeout: float, what: str) -> str:
    """Read one whole line from a pipe a child writes to (Xvfb -displayfd, dbus-daemon --print-address)."""
    os.set_blocking(fd, False)
    buf = b""
    deadline = time.monotonic() + timeout
    while b"\n" not in buf:
        try:
            chunk = os.read(fd, 256)
            if chunk:
                buf += chunk
                continue
            if proc.poll() is not None:
                break
        except BlockingIOError:
            pass
        if proc.poll() is not None and not buf:
            break
        if time.monotonic() > deadline:
            break
        time.sleep(0.005)
    line = buf.split(b"\n", 1)[0].decode().strip()
    if not line:
        raise DesktopError(f"{what} did not start (exit code {proc.poll()}).", code="desktop_failed")
    return line


@dataclass
class Session:
    """A display the backend works on. Private sessions own their processes; attached ones own nothing."""

    display: str
    private: bool
    env: dict[str, str]  # the environment apps get (DISPLAY, XAUTHORITY, DBUS_SESSION_BUS_ADDRESS, ...)
    size: tuple[int, int] | None = None
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    tmp: Path | None = None

    def alive(self) -> bool:
        return all(p.poll() is None for p in self.procs.values())

    def log_path(self, name: str) -> str | None:
        return str(self.tmp / f"{name}.log") if self.tmp else None

    def stop(self) -> None:
        """Stop everything the session started: apps and what D-Bus activated (they carry the session's marker in
        their environment), openbox, the bus, then Xvfb; reap them all."""
        if self.private:
            marker = f"{MARKER}={self.env.get(MARKER, '-')}"
            order = list(reversed(self.procs.values()))  # the reverse of their start: openbox, the bus, Xvfb
            owned = {p.pid for p in order}
            children.stop_tree(order, extra=[p for p in children.marked(marker) if p not in owned])
        self.procs.clear()
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None


def missing_programs() -> list[str]:
    return [name for name in PROGRAMS if shutil.which(name) is None]


def start_private(size: tuple[int, int] = (1280, 800), timeout: float = 10.0, monitors: int = 1,
                  scale: int = 1) -> Session:
    """Start Xvfb (on a free display it picks itself), a private session bus and openbox; wait until each answers.
    The screen spans `monitors` side by side (the backend declares them to RandR); apps are told to draw at `scale`."""
    missing = missing_programs()
    if missing:
        raise DesktopError(f"The private desktop needs {', '.join(missing)} (Debian packages "
                           f"{', '.join(PROGRAMS[m] for m in missing)}). Install them: {APT_HINT}",
                           code="desktop_unavailable")
    children.become_subreaper()
    tmp = Path(tempfile.mkdtemp(prefix="dbg-desktop-"))
    tmp.chmod(0o700)
    session = Session(display="", private=True, env={}, size=size, tmp=tmp)
    try:
        xauth = tmp / "Xauthority"
        _xauthority(xauth, secrets.token_bytes(16))
        read_fd, write_fd = os.pipe()
        try:
            xvfb = children.spawn(["Xvfb", "-displayfd", str(write_fd), "-screen", "0",
                                   f"{size[0] * monitors}x{size[1]}x24", "-dpi", str(96 * scale),
                                   "-auth", str(xauth), "-nolisten", "tcp", "-noreset", "+extension", "XTEST"],
                                  env={**os.environ}, log=session.log_path("xvfb"), pass_fds=[write_fd])
            session.procs["xvfb"] = xvfb
            os.close(write_fd)
            write_fd = -1
            number = _read_line(read_fd, xvfb, timeout, "Xvfb")
        finally:
            if write_fd >= 0:
                os.close(write_fd)
            os.close(read_fd)
        session.display = f":{number}"
        runtime = tmp / "runtime"
        runtime.mkdir(mode=0o700)
        env = {k: v for k, v in os.environ.items()
               if k not in ("NO_AT_BRIDGE", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "SESSION_MANAGER")}
        env.update({MARKER: secrets.token_hex(6)})
        env.update(DISPLAY=session.display, XAUTHORITY=str(xauth), XDG_RUNTIME_DIR=str(runtime),
                   GDK_BACKEND="x11", QT_QPA_PLATFORM="xcb", XDG_SESSION_TYPE="x11",
                   # accessibility on for every toolkit that asks (GTK needs NO_AT_BRIDGE unset, above)
                   QT_ACCESSIBILITY="1", QT_LINUX_ACCESSIBILITY_ALWAYS_ON="1", ACCESSIBILITY_ENABLED="1")
        if scale != 1:  # what a HiDPI session tells its apps (X11 itself has no scale: pixels are pixels)
            env.update(GDK_SCALE=str(scale), QT_SCALE_FACTOR=str(scale), QT_AUTO_SCREEN_SCALE_FACTOR="0")
        read_fd, write_fd = os.pipe()
        try:
            bus = children.spawn(["dbus-daemon", "--session", "--nofork", "--nopidfile", "--nosyslog",
                                  f"--address=unix:path={runtime}/bus", f"--print-address={write_fd}"],
                                 env=env, log=session.log_path("dbus"), pass_fds=[write_fd])
            session.procs["dbus"] = bus
            os.close(write_fd)
            write_fd = -1
            env["DBUS_SESSION_BUS_ADDRESS"] = _read_line(read_fd, bus, timeout, "dbus-daemon")
        finally:
            if write_fd >= 0:
                os.close(write_fd)
            os.close(read_fd)
        session.env = env
        session.procs["openbox"] = children.spawn(["openbox", "--sm-disable"], env=env,
                                                  log=session.log_path("openbox"))
        return session
    except BaseException:
        session.stop()
        raise


def attach(display: str) -> Session:
    """Use an existing display (and the session bus this process already has). Owns nothing; stops nothing."""
    env = {k: v for k, v in os.environ.items() if k != "NO_AT_BRIDGE"}
    env["DISPLAY"] = display
    number = display.split(":", 1)[1].split(".")[0]
    if not os.path.exists(f"/tmp/.X11-unix/X{number}") and not display.split(":", 1)[0]:
        raise DesktopError(f"No X display {display} answers here (no /tmp/.X11-unix/X{number}). Start it, or use "
                           "desktop_display=private for a private desktop.", code="desktop_unavailable")
    return Session(display=display, private=False, env=env)


def can_connect(display: str) -> bool:
    number = display.split(":", 1)[1].split(".")[0]
    with socket.socket(socket.AF_UNIX) as s:
        try:
            s.connect(f"/tmp/.X11-unix/X{number}")
        except OSError:
            return False
    return True
