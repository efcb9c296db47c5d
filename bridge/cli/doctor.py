"""`dbg-bridge doctor`: check what this machine needs and say how to fix each miss."""

from __future__ import annotations

import importlib.util
import shutil
import socket
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bridge.server import running
from bridge.settings import Settings


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    required: bool = True


def _port(settings: Settings) -> Check:
    from bridge.cli.stdio_proxy import bridge_answers

    if bridge_answers(settings.base_url()):
        return Check("port", True, f"a dbg-bridge already answers at {settings.base_url()}")
    other = running.url(settings)  # one started with --port N / --port 0 from this config dir
    if other and other != settings.base_url() and bridge_answers(other):
        return Check("port", True, f"a dbg-bridge answers at {other} (started with another --port; "
                                   f"{settings.host}:{settings.port} is not it). Point the plugins at it with "
                                   f"DBG_BRIDGE_URL={other}")
    with socket.socket() as s:
        try:
            s.bind((settings.host, settings.port))
        except OSError as exc:
            return Check("port", False, f"{settings.host}:{settings.port} is taken by another program ({exc.strerror})",
                         "Stop that program, or run the bridge with --port N (or DBG_PORT=N; 0 picks a free port).")
    return Check("port", True, f"{settings.host}:{settings.port} is free")


def _token(settings: Settings) -> Check:
    path: Path = settings.token_file
    if not path.exists():
        return Check("token file", True, f"{path} will be created (0600) on first `dbg-bridge serve`")
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        return Check("token file", False, f"{path} is readable by others (mode {oct(mode)})", f"chmod 600 {path}")
    return Check("token file", True, f"{path} (mode {oct(mode)})")


def _python() -> Check:
    ok = sys.version_info >= (3, 11)
    return Check("python", ok, sys.version.split()[0], "Install Python 3.11 or newer." if not ok else "")


def _module(name: str, purpose: str, fix: str, required: bool = True) -> Callable[[], Check]:
    def check() -> Check:
        found = importlib.util.find_spec(name) is not None
        return Check(name, found, purpose if found else f"missing ({purpose})", "" if found else fix, required)

    return check


def _chromium() -> Check:
    path = Path("/usr/bin/chromium")
    found = str(path) if path.exists() else shutil.which("chromium")
    return Check("chromium", bool(found), str(found or "not found") + " (for the test suite and benchmarks)",
                 "sudo apt-get install -y chromium   (never `playwright install` here)", required=False)


def _program(name: str, purpose: str, fix: str) -> Callable[[], Check]:
    def check() -> Check:
        where = shutil.which(name)
        return Check(name, bool(where), f"{where} ({purpose})" if where else f"not found ({purpose})",
                     "" if where else fix, required=False)

    return check


def _desktop(settings: Settings) -> list[Check]:
    """What the desktop_* tools need on this machine (warnings: the bridge runs without them)."""
    from bridge.desktop import why_unavailable

    why = why_unavailable(settings)
    served = Check("desktop tools", why is None, "desktop_* tools registered" if why is None
                   else f"desktop_* tools not registered: {why}", required=False)
    if not settings.desktop_enabled:
        return [Check("desktop tools", True, served.detail + " (a web developer's agent does not pay for them)",
                      required=False)]
    from bridge.desktop import auto_backend, is_import_string

    if is_import_string(settings.desktop_backend):  # a backend of one's own: whether it loads is all there is
        return [served]
    if not sys.platform.startswith("linux"):
        return [Check("desktop tools", False, served.detail,
                      "Use the page_* tools, or leave the family off (without --desktop-enabled)", required=False)]
    backend = auto_backend() if settings.desktop_backend == "auto" else settings.desktop_backend
    if backend == "wayland":
        return [served, *_wayland(settings)]
    apt = ("sudo apt-get install -y xvfb openbox dbus at-spi2-core gir1.2-atspi-2.0 libgirepository1.0-dev "
           "libcairo2-dev pkg-config gcc")
    pip = "pip install -e '.[desktop]'"
    out: list[Check] = []
    if settings.desktop_display == "private":
        out += [_program("Xvfb", "desktop tools: the private display", apt)(),
                _program("openbox", "desktop tools: the private window manager", apt)(),
                _program("dbus-daemon", "desktop tools: the private session bus", apt)()]
    else:
        from bridge.desktop.session import can_connect

        reachable = can_connect(settings.desktop_display)
        out.append(Check("display", reachable, f"{settings.desktop_display} "
                         + ("answers (attached: input needs the human's consent)" if reachable else "does not answer"),
                         "" if reachable else "Start that display, or use desktop_display=private.", required=False))
    out += [_module("Xlib", "desktop tools: windows and input (python-xlib)", pip, required=False)(),
            _module("mss", "desktop tools: screenshots", pip, required=False)(),
            _module("gi", "desktop tools: accessibility trees (PyGObject)", pip + "   (needs the apt packages above)",
                    required=False)()]
    typelib = any(next(Path(d).glob(pattern), None) is not None for d in ("/usr/lib", "/usr/lib64")
                  for pattern in ("girepository-1.0/Atspi-2.0.typelib", "*/girepository-1.0/Atspi-2.0.typelib"))
    out.append(Check("AT-SPI", typelib, "Atspi-2.0 typelib " + ("found" if typelib else "missing")
                     + " (accessibility trees of GTK/Qt apps)", "" if typelib else apt, required=False))
    out.append(_program("tesseract", "desktop tools: OCR for apps without an accessibility tree (Tk, xterm)",
                        "sudo apt-get install -y tesseract-ocr")())
    return [served, *out]


def _agent(settings: Settings) -> list[Check]:
    """What `dbg-bridge run` would get: whether the model endpoint answers, and the tool families of a run."""
    from bridge.tools import enabled_tools

    fits: list[Check] = []
    fix = "Set model_url (DBG_MODEL_URL, or OPENAI_BASE_URL) to an OpenAI-compatible /v1 URL, or run with --model client."
    if settings.model == "client":
        model = Check("model", True, "client: runs ask the connected MCP client's own model (sampling)", required=False)
    elif not settings.model_url:
        model = Check("model", False, "no model endpoint set (dbg-bridge run, /v1/runs and agent_run need one)", fix,
                      required=False)
    else:
        import httpx

        url = settings.model_url.rstrip("/")
        headers = {"Authorization": f"Bearer {settings.model_key}"} if settings.model_key else {}
        try:
            r = httpx.get(url + "/models", headers=headers, timeout=3)
            names = [m.get("id") for m in (r.json().get("data") or [])][:5] if r.status_code == 200 else []
            model = Check("model", r.status_code == 200, f"{url} answers" + (f" (models: {', '.join(map(str, names))})"
                                                                           if names else f" HTTP {r.status_code}"),
                          "" if r.status_code == 200 else ("Give the right key (--model-key, OPENAI_API_KEY)."
                                                           if r.status_code in (401, 403) else
                                                           "Check the URL: it ends in /v1."), required=False)
        except (httpx.HTTPError, ValueError) as exc:
            model = Check("model", False, f"{url} does not answer ({type(exc).__name__})",
                          "Start the model server (./scripts/model.sh starts the local one: docs/runs.md), or " + fix,
                          required=False)
        if model.ok:
            from bridge.cli import model_probe

            fits = [Check(name, f.ok, f.detail, f.fix, required=False) for name, f in
                    zip(("context", "tool calling"), model_probe.check(settings, url, headers))]
    families: dict[str, int] = {}
    for tool in enabled_tools(settings):
        if not tool.name.startswith("agent_"):
            families[tool.name.split("_")[0]] = families.get(tool.name.split("_")[0], 0) + 1
    shown = ", ".join(f"{name} ({n})" for name, n in families.items())
    servers = ", ".join(f"{name}__*" for name in settings.mcp_servers)
    tools = Check("run tools", True, f"a run gets {shown}" + (f", and {servers} (other MCP servers, health-checked when "
                                                              "the bridge starts)" if servers else ""), required=False)
    return [model, *fits, tools]


def _wayland(settings: Settings) -> list[Check]:
    """What the Wayland (wlroots) backend needs: sway and its IPC, wtype, grim, AT-SPI, and a user for a root bridge."""
    import os
    import pwd

    from bridge.desktop.wayland.session import APT_HINT

    out: list[Check] = []
    if settings.desktop_display == "private":
        out += [_program("sway", "desktop tools (wayland): the private headless compositor", APT_HINT)(),
                _program("dbus-daemon", "desktop tools (wayland): the private session bus", APT_HINT)()]
        if os.geteuid() == 0:
            try:
                pwd.getpwnam(settings.desktop_user)
                found = True
            except KeyError:
                found = False
            out.append(Check("desktop user", found, f"{settings.desktop_user} "
                             + ("exists (a root bridge runs sway and its apps as it: sway refuses root)" if found
                                else "missing (sway refuses root: a root bridge runs it as this user)"),
                             "" if found else f"sudo useradd --system --create-home {settings.desktop_user}",
                             required=False))
            gi = Path("/usr/bin/python3").exists() and Path("/usr/lib/python3/dist-packages/gi").is_dir()
            out.append(Check("python3-gi", gi, "/usr/bin/python3 with gi " + ("found" if gi else "missing")
                             + " (the accessibility helper runs as that user, on Debian's python)",
                             "" if gi else "sudo apt-get install -y python3-gi", required=False))
    else:
        sock = os.environ.get("SWAYSOCK")
        out.append(Check("sway IPC", bool(sock and os.path.exists(sock)), f"SWAYSOCK={sock or '(unset)'}",
                         "" if sock and os.path.exists(sock) else "Start the bridge inside the sway session (SWAYSOCK "
                         "set), or use desktop_display=private. GNOME and KDE need portals and libei: not built.",
                         required=False))
    out += [_program("swaymsg", "desktop tools (wayland): windows through sway's IPC", APT_HINT)(),
            _program("wtype", "desktop tools (wayland): keys (virtual-keyboard protocol)", APT_HINT)(),
            _program("grim", "desktop tools (wayland): screenshots (screencopy)", APT_HINT)(),
            _module("gi", "desktop tools: accessibility trees (PyGObject)", "pip install -e '.[desktop]'",
                    required=False)(),
            _program("tesseract", "desktop tools: OCR for apps without an accessibility tree",
                     "sudo apt-get install -y tesseract-ocr")()]
    return out


def checks(settings: Settings) -> list[Check]:
    return [
        _python(),
        _port(settings),
        _token(settings),
        _module("mcp", "the MCP SDK", "pip install -e .")(),
        _module("uvicorn", "the HTTP server", "pip install -e .")(),
        _chromium(),
        _module("playwright", "drives Chromium in tests", "pip install -e '.[test]'", required=False)(),
        *_desktop(settings),
        *_agent(settings),
    ]


def run_doctor(settings: Settings) -> int:
    results = checks(settings)
    width = max(len(c.name) for c in results)
    failed = 0
    for c in results:
        mark = "ok  " if c.ok else ("FAIL" if c.required else "warn")
        print(f"[{mark}] {c.name:<{width}}  {c.detail}")
        if not c.ok and c.fix:
            print(f"       {'':<{width}}  fix: {c.fix}")
        failed += (not c.ok) and c.required
    print("All required checks passed." if not failed else f"{failed} required check(s) failed.")
    return 1 if failed else 0
