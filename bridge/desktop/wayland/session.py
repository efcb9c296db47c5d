"""The private Wayland desktop: headless sway and a private D-Bus session bus, children of the bridge; or the
compositor the bridge's own session runs (WAYLAND_DISPLAY + SWAYSOCK).

sway refuses to run as root: a root bridge runs sway, the bus and every app as an unprivileged user
(`desktop_user`, created by scripts/setup.d/20-desktop-user.sh for the tests). The bus lets root in too, so the
bridge's AT-SPI helper (root) reads the apps' trees; the accessibility bus the apps' AT-SPI launcher starts lets root
in by its own policy.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import socket
import tempfile
import time
from pathlib import Path

from bridge.desktop import children
from bridge.desktop.errors import DesktopError
from bridge.desktop.session import MARKER, Session

#: Programs the Wayland backend needs, and the Debian packages that hold them.
PROGRAMS = {"sway": "sway", "swaymsg": "sway", "grim": "grim", "wtype": "wtype", "dbus-daemon": "dbus"}
APT_HINT = "sudo apt-get install -y sway grim wtype dbus at-spi2-core gir1.2-atspi-2.0"
_DROP = ("DISPLAY", "XAUTHORITY", "WAYLAND_DISPLAY", "SWAYSOCK", "I3SOCK", "DBUS_SESSION_BUS_ADDRESS", "NO_AT_BRIDGE",
         "SESSION_MANAGER", "XDG_RUNTIME_DIR", "XDG_SESSION_TYPE", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
         "XDG_CACHE_HOME", "XDG_STATE_HOME")
BUS_CONF = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path={path}</listen><auth>EXTERNAL</auth>
<standard_session_servicedirs/>
<policy context="default"><allow user="root"/><allow user="{user}"/><allow send_destination="*" eavesdrop="true"/>
<allow eavesdrop="true"/><allow own="*"/></policy></busconfig>
"""
SWAY_CONF = """output HEADLESS-1 resolution {w}x{h} position 0 0
default_border none
default_floating_border none
gaps inner 0
focus_follows_mouse no
focus_on_window_activation focus
xwayland disable
"""
APP_ENV = {"GDK_BACKEND": "wayland", "QT_QPA_PLATFORM": "wayland", "XDG_SESSION_TYPE": "wayland",
           "QT_ACCESSIBILITY": "1", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1", "ACCESSIBILITY_ENABLED": "1",
           "QT_WAYLAND_DISABLE_WINDOWDECORATION": "1"}


def missing_programs() -> list[str]:
    return [name for name in PROGRAMS if shutil.which(name) is None]


def run_as(user: str) -> tuple[int, int, pwd.struct_passwd] | None:
    """(uid, gid, entry) of the user a root bridge runs its Wayland desktop as; None when the bridge is not root."""
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        raise DesktopError(f"sway refuses to run as root, and the user {user!r} (desktop_user) that a root bridge "
                           f"runs the private Wayland desktop as does not exist. Create it: sudo useradd --system "
                           f"--create-home {user}, or run the bridge as a normal user.",
                           code="desktop_unavailable") from None
    if entry.pw_uid == 0:
        raise DesktopError(f"desktop_user {user!r} is root; sway refuses that. Name an unprivileged user.",
                           code="bad_arguments")
    return entry.pw_uid, entry.pw_gid, entry


#: What the AT-SPI helper imports: copied where the desktop's user can read them (the bridge's own tree may sit in a
#: directory only root can enter).
HELPER_MODULES = ("__init__.py", "backend.py", "atspi/__init__.py", "atspi/host.py", "atspi/accessibility.py",
                  "atspi/toolkits.py")
HELPER_PYTHON = "/usr/bin/python3"  # Debian's, with python3-gi: the bridge's own interpreter may be root's alone


def helper_for(tmp: Path, ids: tuple[int, int]) -> tuple[str, str]:
    """(python, import root) for an AT-SPI helper that runs as the desktop's user."""
    if not os.access(HELPER_PYTHON, os.X_OK):
        raise DesktopError(f"A root bridge runs the Wayland desktop's accessibility helper as {ids[0]} with "
                           f"{HELPER_PYTHON} and python3-gi: sudo apt-get install -y python3-gi", code="not_available")
    src = Path(__file__).resolve().parents[1]
    dest = tmp / "helper" / "bridge" / "desktop"
    dest.mkdir(parents=True, exist_ok=True)
    (dest.parent / "__init__.py").write_text("")
    for name in HELPER_MODULES:
        (dest / name).parent.mkdir(exist_ok=True)
        shutil.copyfile(src / name, dest / name)
    for path in (tmp / "helper", dest.parent, dest, *dest.parent.rglob("*")):
        os.chown(path, *ids)
    return HELPER_PYTHON, str(tmp / "helper")


def _wait(check: object, proc: object, timeout: float, what: str, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        if proc.poll() is not None or time.monotonic() > deadline:  # type: ignore[attr-defined]
            tail = log.read_text(errors="replace")[-1200:] if log.exists() else ""
            raise DesktopError(f"{what} did not start (exit code {proc.poll()}). Its log ends with:\n{tail}",  # type: ignore[attr-defined]
                               code="desktop_failed")
        time.sleep(0.01)


def start_private(size: tuple[int, int], user: str, timeout: float = 15.0) -> tuple[Session, tuple[int, int] | None]:
    """Start a private session bus and headless sway (as `user` when the bridge is root); wait for the Wayland
    socket and the IPC socket. Returns the session (its env is what apps get) and the (uid, gid) apps run as."""
    missing = missing_programs()
    if missing:
        raise DesktopError(f"The private Wayland desktop needs {', '.join(missing)} (Debian packages "
                           f"{', '.join(sorted({PROGRAMS[m] for m in missing}))}). Install them: {APT_HINT}",
                           code="desktop_unavailable")
    who = run_as(user)
    ids = (who[0], who[1]) if who else None
    children.become_subreaper()
    tmp = Path(tempfile.mkdtemp(prefix="dbg-wayland-"))
    tmp.chmod(0o700)
    session = Session(display="", private=True, env={}, size=size, tmp=tmp)
    try:
        name = who[2].pw_name if who else pwd.getpwuid(os.geteuid()).pw_name
        (tmp / "bus.conf").write_text(BUS_CONF.format(path=tmp / "bus", user=name))
        (tmp / "sway.conf").write_text(SWAY_CONF.format(w=size[0], h=size[1]))
        if ids:
            for p in (tmp, tmp / "bus.conf", tmp / "sway.conf"):
                os.chown(p, *ids)
        env = {k: v for k, v in os.environ.items() if k not in _DROP}
        if who:
            env.update(HOME=who[2].pw_dir, USER=name, LOGNAME=name)
        env.update({MARKER: secrets.token_hex(6), "XDG_RUNTIME_DIR": str(tmp)})
        session.procs["dbus"] = children.spawn(["dbus-daemon", "--nofork", "--nopidfile", "--nosyslog",
                                                f"--config-file={tmp / 'bus.conf'}"], env=env,
                                               log=session.log_path("dbus"), user=ids, cwd=str(tmp))
        _wait(lambda: (tmp / "bus").exists(), session.procs["dbus"], timeout, "dbus-daemon", tmp / "dbus.log")
        env["DBUS_SESSION_BUS_ADDRESS"] = f"unix:path={tmp / 'bus'}"
        sway_env = {**env, "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman"}
        session.procs["sway"] = children.spawn(["sway", "-c", str(tmp / "sway.conf")], env=sway_env,
                                               log=session.log_path("sway"), user=ids, cwd=str(tmp))

        def sockets() -> tuple[str, str] | None:
            names = os.listdir(tmp)
            wl = [n for n in names if n.startswith("wayland-") and not n.endswith(".lock")]
            ipc = [n for n in names if n.startswith("sway-ipc.") and n.endswith(".sock")]
            return (wl[0], str(tmp / ipc[0])) if wl and ipc else None

        _wait(sockets, session.procs["sway"], timeout, "sway", tmp / "sway.log")
        wayland, swaysock = sockets()  # type: ignore[misc]

        def answers() -> bool:  # the socket file exists a moment before sway listens on it
            with socket.socket(socket.AF_UNIX) as probe:
                try:
                    probe.connect(swaysock)
                except OSError:
                    return False
            return True

        _wait(answers, session.procs["sway"], timeout, "sway's IPC", tmp / "sway.log")
        env.update(APP_ENV, WAYLAND_DISPLAY=wayland, SWAYSOCK=swaysock)
        session.display, session.env = wayland, env
        return session, ids
    except BaseException:
        session.stop()
        raise


def attach(display: str) -> Session:
    """The compositor this process's own session runs (SWAYSOCK; WAYLAND_DISPLAY unless `display` names the socket,
    e.g. wayland-1). Owns nothing; stops nothing."""
    wayland = display if display.startswith("wayland-") else os.environ.get("WAYLAND_DISPLAY")
    swaysock = os.environ.get("SWAYSOCK")
    if not wayland or not swaysock:
        raise DesktopError("Attaching to a Wayland desktop needs WAYLAND_DISPLAY and SWAYSOCK in the bridge's "
                           "environment (start it from inside the sway session), or use desktop_display=private.",
                           code="desktop_unavailable")
    env = {k: v for k, v in os.environ.items() if k != "NO_AT_BRIDGE"}
    env.update(APP_ENV, WAYLAND_DISPLAY=wayland)
    return Session(display=wayland, private=False, env=env)
