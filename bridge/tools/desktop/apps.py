"""desktop_* tools for the desktop itself and its apps: status, launch, open a URL, list, quit."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any

from pydantic import Field

from bridge.desktop import actions, recording
from bridge.desktop.browser import browser_argv, check_url
from bridge.desktop.errors import DesktopError
from bridge.desktop.service import Desktop
from bridge.tools.desktop.common import WindowArg, PidArg, Timeout, run


ACCESSIBLE_GRACE = 2.0  # seconds a launched app's window may wait for its accessibility tree


async def desktop_status(desk: Desktop) -> dict[str, Any]:
    """The desktop: display, screens, window manager, accessibility/OCR, whether input is allowed, apps."""
    info = await run(desk, lambda b: {**b.info(), "windows": len(b.windows()), "apps": len(b.apps())})
    out = {"backend": desk.backend_name, **info, "mode": "attached" if desk.attached else "private",
           "input": ("the human has the desktop" if desk.control_state()["holder"] == "human" else "allowed")
           if desk.input_allowed else "needs the human's consent", "control": desk.control_state(),
           "allow": desk.settings.desktop_allow, "browser": desk.settings.desktop_browser, "session": desk.sessions,
           "recording": desk.recording.status() if desk.recording is not None else None}
    if desk.attached and desk.consent_until is not None and desk.input_allowed:
        out["inputUntil"] = round(desk.consent_until, 3)
    return out


async def desktop_launch_app(
    desk: Desktop,
    argv: Annotated[list[str], Field(min_length=1, description='e.g. ["gedit", "a.txt"] (no shell).')],
    cwd: Annotated[str | None, Field(description="Working directory.")] = None,
    wait: Annotated[bool, Field(description="Wait until the app shows a window.")] = True,
    timeout: Timeout = 20,
) -> dict[str, Any]:
    """Start an allowlisted program (desktop_allow) and wait for its window."""
    allow = list(desk.settings.desktop_allow)
    app = await run(desk, lambda b: b.launch(argv, allow, cwd), acting_as="Launching an app")
    if not wait:
        return {"app": app, "windows": []}
    return await _app_window(desk, app, argv[0], timeout, ACCESSIBLE_GRACE)


async def _app_window(desk: Desktop, app: dict[str, Any], program: str, timeout: float,
                      grace: float) -> dict[str, Any]:
    """Wait (bounded) until a launched app shows a window, and up to `grace` s more for its accessibility tree."""
    pid = app["pid"]
    started = time.monotonic()
    deadline = started + timeout

    def poll(b: Any) -> tuple[list[dict[str, Any]], dict[str, Any] | None, bool]:
        from bridge.desktop.children import descendants

        family = {pid, *descendants(pid)}
        wins = [w for w in b.windows() if w["pid"] in family and w["mapped"]]
        row = next((a for a in b.apps() if a["pid"] == pid), None)
        try:
            accessible = bool(wins) and bool(family & b.accessible_pids())
        except DesktopError:
            accessible = False
        return wins, row, accessible

    seen_window: float | None = None
    while True:
        wins, row, accessible = await run(desk, poll)
        if wins:
            # toolkits register with AT-SPI around the time they map a window: give it a moment (Tk never does)
            seen_window = seen_window or time.monotonic()
            if accessible or time.monotonic() - seen_window >= grace:
                return {"app": row or app, "windows": wins, "accessible": accessible,
                        "ms": round((time.monotonic() - started) * 1000)}
        if row is not None and not row["running"]:
            log = await run(desk, lambda b: b.app_log(pid))
            raise DesktopError(f"{program} exited with code {row.get('exitCode')} before showing a window. Its output "
                               f"ends with:\n{log[-1200:] or '(nothing)'}", code="app_exited")
        if time.monotonic() > deadline:
            raise DesktopError(f"{program} (pid {pid}) runs but showed no window within {timeout:g} s. It keeps "
                               "running: call desktop_wait_for_window, or desktop_quit_app to stop it.",
                               code="wait_timeout")
        await asyncio.sleep(0.05)


async def desktop_open_url(
    desk: Desktop,
    url: Annotated[str, Field(min_length=1, max_length=8000, description="http(s) only.")],
    timeout: Timeout = 30,
) -> dict[str, Any]:
    """Open an http(s) URL in a new desktop_browser window and wait for it."""
    url = check_url(url)
    program = desk.settings.desktop_browser
    allow = list(desk.settings.desktop_allow)

    def launch(b: Any) -> dict[str, Any]:
        argv = browser_argv(program, url, b.temp_dir("browser-"))
        try:
            return b.launch(argv, allow, None)
        except DesktopError as exc:
            if exc.code != "not_allowed":
                raise
            raise DesktopError(f"The browser {program!r} (the desktop_browser setting) is not on the launch allowlist "
                               f"({', '.join(allow) or 'empty'}). The human adds it with desktop_allow (e.g. "
                               f"DBG_DESKTOP_ALLOW={program}).", code="not_allowed") from None

    app = await run(desk, launch, acting_as="Opening a URL")
    out = await _app_window(desk, app, program, timeout, 0)
    return {"url": url, "browser": program, **out}


async def desktop_list_apps(desk: Desktop) -> dict[str, Any]:
    """Apps the bridge launched (pid, argv, running/exit code) and others with windows."""
    def read(b: Any) -> dict[str, Any]:
        wins = b.windows()
        try:
            accessible = b.accessible_pids()
        except DesktopError:
            accessible = set()
        launched = b.apps()
        for a in launched:
            a["windows"] = [actions.window_row(w) for w in wins if w["pid"] == a["pid"]]
            a["accessible"] = a["pid"] in accessible
        mine = {a["pid"] for a in launched}
        others: dict[Any, dict[str, Any]] = {}
        for w in wins:
            if w["pid"] in mine:
                continue
            o = others.setdefault(w["pid"], {"pid": w["pid"], "class": w["class"], "windows": [],
                                             "accessible": w["pid"] in accessible})
            o["windows"].append(actions.window_row(w))
        return {"launched": launched, "others": list(others.values())}

    return await run(desk, read)


async def desktop_quit_app(
    desk: Desktop,
    pid: PidArg = None,
    window: WindowArg = None,
    force: Annotated[bool, Field(description="Terminate if needed.")] = True,
    timeout: Annotated[float, Field(gt=0, le=60)] = 5,
) -> dict[str, Any]:
    """Close an app's windows, wait for it to exit; force terminates apps the bridge launched."""
    if pid is None and window is None:
        raise DesktopError("Say which app: pid (from desktop_list_apps) or a window.", code="bad_arguments")

    def ask(b: Any) -> tuple[int, bool, list[int]]:
        target_pid = pid if pid is not None else actions.resolve_window(b, window)["pid"]  # type: ignore[index]
        if target_pid is None:
            raise DesktopError("That window does not say which process owns it (no _NET_WM_PID); close it with "
                               "desktop_hotkey('alt+F4') instead.", code="bad_arguments")
        ours = any(a["pid"] == target_pid for a in b.apps())
        wins = actions.windows_of(b, target_pid)
        if not wins and not ours:
            raise DesktopError(f"No app with pid {target_pid} has a window here. desktop_list_apps shows the apps.",
                               code="no_window")
        for w in wins:
            b.close_window(w["id"])
        return target_pid, ours, [w["id"] for w in wins]

    target_pid, ours, closed = await run(desk, ask, acting_as="Quitting an app")

    def state(b: Any) -> tuple[bool, list[dict[str, Any]]]:
        row = next((a for a in b.apps() if a["pid"] == target_pid), None)
        return (row is not None and not row["running"]), actions.windows_of(b, target_pid)

    deadline = time.monotonic() + timeout
    while True:
        exited, wins = await run(desk, state)
        if exited or (not ours and not wins):
            return {"pid": target_pid, "how": "closed", "closedWindows": closed, "exited": exited or None}
        if time.monotonic() > deadline:
            break
        await asyncio.sleep(0.05)
    if ours and force:
        row = await run(desk, lambda b: b.stop_app(target_pid))
        return {"pid": target_pid, "how": "terminated", "closedWindows": closed, "app": row}
    raise DesktopError(f"pid {target_pid} still has {len(wins)} window(s) after {timeout:g} s (a 'save changes?' "
                       f"dialog?): {[actions.window_row(w) for w in wins]}. Look with desktop_screenshot"
                       + (", or pass force=true to terminate it." if ours else "."), code="wait_timeout")
