"""desktop_* tools: windows, input, screenshots and accessibility trees of the desktop around the web app.

A private Xvfb desktop by default (started on the first call); an attached display (desktop_display=':N') allows the
read-only tools only until the human grants consent. Every answer that acts says how it found its target (`method`:
accessibility | ocr | coordinates) and how it acted (`input`: pointer | keyboard | action).
"""

from __future__ import annotations

import asyncio
import base64
import json
import math
import re
import time
from typing import Annotated, Any, Literal

from mcp.types import CallToolResult, ImageContent, TextContent
from pydantic import BaseModel, ConfigDict, Field

from bridge.desktop import actions, recording
from bridge.desktop.actions import Target
from bridge.desktop.browser import browser_argv, check_url
from bridge.desktop.errors import DesktopError
from bridge.desktop.keys import parse_chord
from bridge.desktop.selectors import Selector
from bridge.desktop.service import Desktop, desktop_for
from bridge.dispatch import Dispatcher
from bridge.errors import BridgeError
from bridge.tools.base import Tool, acting, read_only

WindowArg = Annotated[int | str | None, Field(
    description="A window: its id from desktop_list_windows, or text of its title (an exact title wins; it must pick "
                "one window). Ids are reused once a window closes: add pid to be sure.")]
PidArg = Annotated[int | None, Field(description="A process id: only that app's windows and elements.")]
TargetArg = Annotated[Selector | None, Field(
    description="The element by selector, e.g. {\"role\": \"button\", \"name\": \"OK\"}; scope it with window or "
                "pid. Several matches without ordinal fail as `ambiguous`, none as `no_match` (both list "
                "candidates).")]
RefArg = Annotated[str | None, Field(description="An element ref (e.g. a12@kq) from desktop_find_elements or "
                                                 "desktop_accessibility_tree. A stale ref fails; it never hits "
                                                 "another element.")]
TextArg = Annotated[str | None, Field(description="Visible text found by OCR (for apps with no accessibility tree, "
                                                  "e.g. Tk); slower and approximate.")]
XArg = Annotated[int | None, Field(description="Screen x (last resort; a screenshot's pixel + its origin).")]
YArg = Annotated[int | None, Field(description="Screen y (last resort).")]
OrdinalArg = Annotated[int | None, Field(description="Pick one of several matches (0 = first, -1 = last).")]
Method = Annotated[Literal["auto", "pointer", "accessibility"], Field(
    description="auto: a pointer click on the element (its accessible action if the pointer cannot reach it); "
                "pointer: only a pointer click; accessibility: only its accessible action (no pointer).")]
Timeout = Annotated[float, Field(gt=0, le=120, description="Seconds to wait at most.")]
ACCESSIBLE_GRACE = 2.0  # seconds a launched app's window may wait for its accessibility tree


def _desktop(d: Dispatcher) -> Desktop:
    return desktop_for(d)


async def _run(d: Dispatcher, fn: Any, timeout: float = 60, acting_as: str | None = None) -> Any:
    desk = _desktop(d)
    if acting_as is not None:
        desk.require_input(acting_as)
    try:
        return await desk.run(fn, timeout, acting=acting_as is not None)
    except BridgeError:
        raise
    except TimeoutError:
        raise DesktopError(f"The desktop did not answer within {timeout:g} s.", code="desktop_timeout") from None
    except Exception as exc:  # a toolkit error: say what it was rather than fail without a code
        raise DesktopError(f"The desktop backend failed: {type(exc).__name__}: {exc}. desktop_status shows whether "
                           "the desktop still runs.", code="desktop_error") from exc


def _target(target: Selector | None = None, ref: str | None = None, text: str | None = None, x: int | None = None,
            y: int | None = None, window: int | str | None = None, pid: int | None = None,
            ordinal: int | None = None) -> Target:
    return Target(ref=ref, selector=target, text=text, x=x, y=y, window=window, pid=pid, ordinal=ordinal)


# ---- status, apps -------------------------------------------------------------------------------


async def desktop_status(d: Dispatcher) -> dict[str, Any]:
    """The desktop the tools work on: backend, display (private or attached), screen size and scale, window manager,
    whether accessibility and OCR are available, whether input is allowed (and until when), launched apps, the launch
    allowlist and browser, and the recording under way. Starts the private desktop if it is not running yet."""
    desk = _desktop(d)
    info = await _run(d, lambda b: {**b.info(), "windows": len(b.windows()), "apps": len(b.apps())})
    out = {"backend": desk.backend_name, **info, "mode": "attached" if desk.attached else "private",
           "input": "allowed" if desk.input_allowed else "needs the human's consent",
           "allow": d.settings.desktop_allow, "browser": d.settings.desktop_browser, "session": desk.sessions,
           "recording": desk.recording.status() if desk.recording is not None else None}
    if desk.attached and desk.consent_until is not None and desk.input_allowed:
        out["inputUntil"] = round(desk.consent_until, 3)
    return out


async def desktop_launch_app(
    d: Dispatcher,
    argv: Annotated[list[str], Field(min_length=1, description="Program and arguments, e.g. [\"gedit\", \"a.txt\"]. "
                                                              "Run directly (never a shell); the program must be on "
                                                              "the desktop_allow list.")],
    cwd: Annotated[str | None, Field(description="Working directory.")] = None,
    wait: Annotated[bool, Field(description="Wait until the app shows a window.")] = True,
    timeout: Timeout = 20,
) -> dict[str, Any]:
    """Start an allowlisted program on the desktop as the bridge's child and (by default) wait for its first window.
    Returns its pid and windows. Fails with not_allowed for programs the human did not allowlist (desktop_allow)."""
    allow = list(d.settings.desktop_allow)
    app = await _run(d, lambda b: b.launch(argv, allow, cwd), acting_as="Launching an app")
    if not wait:
        return {"app": app, "windows": []}
    return await _app_window(d, app, argv[0], timeout, ACCESSIBLE_GRACE)


async def _app_window(d: Dispatcher, app: dict[str, Any], program: str, timeout: float,
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
        wins, row, accessible = await _run(d, poll)
        if wins:
            # toolkits register with AT-SPI around the time they map a window: give it a moment (Tk never does)
            seen_window = seen_window or time.monotonic()
            if accessible or time.monotonic() - seen_window >= grace:
                return {"app": row or app, "windows": wins, "accessible": accessible,
                        "ms": round((time.monotonic() - started) * 1000)}
        if row is not None and not row["running"]:
            log = await _run(d, lambda b: b.app_log(pid))
            raise DesktopError(f"{program} exited with code {row.get('exitCode')} before showing a window. Its output "
                               f"ends with:\n{log[-1200:] or '(nothing)'}", code="app_exited")
        if time.monotonic() > deadline:
            raise DesktopError(f"{program} (pid {pid}) runs but showed no window within {timeout:g} s. It keeps "
                               "running: call desktop_wait_for_window, or desktop_quit_app to stop it.",
                               code="wait_timeout")
        await asyncio.sleep(0.05)


async def desktop_open_url(
    d: Dispatcher,
    url: Annotated[str, Field(min_length=1, max_length=8000, description="An http:// or https:// URL (nothing else "
                                                                        "is opened).")],
    timeout: Timeout = 30,
) -> dict[str, Any]:
    """Open a URL in a new browser window on the desktop and wait for the window. The browser is the desktop_browser
    setting (Chromium by default, with a throwaway profile and its web content in the accessibility tree); it runs
    as argv, never through a shell, and must be on the desktop_allow list like any launched app."""
    url = check_url(url)
    program = d.settings.desktop_browser
    allow = list(d.settings.desktop_allow)

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

    app = await _run(d, launch, acting_as="Opening a URL")
    out = await _app_window(d, app, program, timeout, 0)
    return {"url": url, "browser": program, **out}


async def desktop_list_apps(d: Dispatcher) -> dict[str, Any]:
    """Apps on the desktop: those the bridge launched (pid, argv, running or exit code, windows) and the others that
    own windows (pid, class, titles), each with whether it exposes an accessibility tree."""
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

    return await _run(d, read)


async def desktop_quit_app(
    d: Dispatcher,
    pid: PidArg = None,
    window: WindowArg = None,
    force: Annotated[bool, Field(description="If it does not close in time, terminate it (only apps the bridge "
                                             "launched).")] = True,
    timeout: Annotated[float, Field(gt=0, le=60, description="Seconds to wait for it to close.")] = 5,
) -> dict[str, Any]:
    """Close an app: ask each of its windows to close (like the close button), wait for it to exit, then terminate
    it if the bridge launched it and force is set. Apps the bridge did not launch only get the polite request."""
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

    target_pid, ours, closed = await _run(d, ask, acting_as="Quitting an app")

    def state(b: Any) -> tuple[bool, list[dict[str, Any]]]:
        row = next((a for a in b.apps() if a["pid"] == target_pid), None)
        return (row is not None and not row["running"]), actions.windows_of(b, target_pid)

    deadline = time.monotonic() + timeout
    while True:
        exited, wins = await _run(d, state)
        if exited or (not ours and not wins):
            return {"pid": target_pid, "how": "closed", "closedWindows": closed, "exited": exited or None}
        if time.monotonic() > deadline:
            break
        await asyncio.sleep(0.05)
    if ours and force:
        row = await _run(d, lambda b: b.stop_app(target_pid))
        return {"pid": target_pid, "how": "terminated", "closedWindows": closed, "app": row}
    raise DesktopError(f"pid {target_pid} still has {len(wins)} window(s) after {timeout:g} s (a 'save changes?' "
                       f"dialog?): {[actions.window_row(w) for w in wins]}. Look with desktop_screenshot"
                       + (", or pass force=true to terminate it." if ours else "."), code="wait_timeout")


# ---- windows ------------------------------------------------------------------------------------


async def desktop_list_windows(
    d: Dispatcher,
    pid: PidArg = None,
    title: Annotated[str | None, Field(description="Only windows whose title contains this (case-insensitive).")] = None,
) -> dict[str, Any]:
    """Windows on the desktop, topmost first: id, pid, title, class, bounds (client area) and frame (with
    decorations) in screen pixels, active, state (normal, maximized, minimized, fullscreen, above, modal…), z (0 =
    top) and type (normal, dialog…)."""
    def read(b: Any) -> dict[str, Any]:
        wins = b.windows()
        info = b.info()
        return {"windows": wins, "screen": info["screen"]}

    out = await _run(d, read)
    wins = [w for w in out["windows"] if (pid is None or w["pid"] == pid)
            and (title is None or title.casefold() in w["title"].casefold())]
    active = next((w["id"] for w in out["windows"] if w["active"]), None)
    return {"windows": wins, "count": len(wins), "active": active, "screen": out["screen"]}


async def desktop_activate_window(d: Dispatcher, window: WindowArg = None, pid: PidArg = None) -> dict[str, Any]:
    """Raise a window and give it keyboard focus (restoring it if minimized)."""
    def act(b: Any) -> dict[str, Any]:
        w = _one_window(b, window, pid)
        ok = b.activate_window(w["id"])
        return {"window": _fresh(b, w["id"]), "activated": ok}

    return await _run(d, act, acting_as="Activating a window")


def _one_window(b: Any, window: int | str | None, pid: int | None) -> dict[str, Any]:
    if window is not None:
        w = actions.resolve_window(b, window, pid)
        assert w is not None
        return w
    if pid is not None:
        mine = actions.windows_of(b, pid)
        if len(mine) == 1:
            return mine[0]
        raise DesktopError(f"pid {pid} has {len(mine)} windows: {[actions.window_row(w) for w in mine]}. Pass window.",
                           code="ambiguous_window" if mine else "no_window")
    raise DesktopError("Say which window: window (id or title) or pid.", code="bad_arguments")


def _fresh(b: Any, wid: int) -> dict[str, Any] | None:
    return next((w for w in b.windows() if w["id"] == wid), None)


async def desktop_resize_window(
    d: Dispatcher,
    window: WindowArg = None,
    pid: PidArg = None,
    x: Annotated[int | None, Field(description="New left edge of the frame (screen px); omitted keeps it.")] = None,
    y: Annotated[int | None, Field(description="New top edge of the frame.")] = None,
    width: Annotated[int | None, Field(gt=0, description="New frame width.")] = None,
    height: Annotated[int | None, Field(gt=0, description="New frame height.")] = None,
) -> dict[str, Any]:
    """Move and/or resize a window: the outer frame (with its title bar) gets these bounds. Answers the bounds it
    settled at; apps may keep a minimum size, which the answer notes."""
    def act(b: Any) -> dict[str, Any]:
        w = _one_window(b, window, pid)
        f = w["frame"]
        want = {"x": f["x"] if x is None else x, "y": f["y"] if y is None else y,
                "width": f["width"] if width is None else width, "height": f["height"] if height is None else height}
        after = b.move_resize_window(w["id"], want)
        out: dict[str, Any] = {"window": after, "requested": want}
        if after is not None and after["frame"] != want:
            out["note"] = "The window settled elsewhere than asked (a minimum size, or the screen edge)."
        return out

    return await _run(d, act, acting_as="Resizing a window")


async def desktop_window_state(
    d: Dispatcher,
    state: Annotated[Literal["maximized", "minimized", "fullscreen", "above", "normal"], Field(
        description="maximized, minimized, fullscreen, above (stay on top), or normal (undo all of these).")],
    window: WindowArg = None,
    pid: PidArg = None,
) -> dict[str, Any]:
    """Maximize, minimize, fullscreen, keep above, or restore a window to normal. Answers the window after."""
    def act(b: Any) -> dict[str, Any]:
        w = _one_window(b, window, pid)
        b.set_window_state(w["id"], state)
        return {"window": _fresh(b, w["id"])}

    return await _run(d, act, acting_as="Changing a window's state")


def layout_frames(layout: str, n: int, area: dict[str, int], gap: int) -> list[dict[str, int]]:
    """Frames for n windows in the work area."""
    ax, ay, aw, ah = area["x"], area["y"], area["width"], area["height"]
    if layout == "cascade":
        w, h, step = int(aw * 0.6), int(ah * 0.6), 32
        return [{"x": ax + (i * step) % max(1, aw - w), "y": ay + (i * step) % max(1, ah - h), "width": w,
                 "height": h} for i in range(n)]
    if layout == "side_by_side":
        cols, rows = n, 1
    elif layout == "stacked":
        cols, rows = 1, n
    else:
        cols = math.ceil(math.sqrt(n))
        rows = math.ceil(n / cols)
    cw, ch = (aw - gap * (cols - 1)) // cols, (ah - gap * (rows - 1)) // rows
    return [{"x": ax + (i % cols) * (cw + gap), "y": ay + (i // cols) * (ch + gap), "width": cw, "height": ch}
            for i in range(n)]


async def desktop_arrange_windows(
    d: Dispatcher,
    layout: Annotated[Literal["side_by_side", "stacked", "cascade", "grid"], Field(
        description="side_by_side (columns), stacked (rows), cascade (overlapping, offset), grid.")],
    windows: Annotated[list[int | str] | None, Field(
        description="Windows to arrange, in order (ids or titles); default: every visible normal window, "
                    "topmost first.")] = None,
    gap: Annotated[int, Field(ge=0, le=200, description="Pixels between tiles.")] = 0,
) -> dict[str, Any]:
    """Arrange windows over the work area in a layout; answers each window's requested and settled frame."""
    def act(b: Any) -> dict[str, Any]:
        all_wins = b.windows()
        if windows:
            chosen = [actions.resolve_window(b, w, None, all_wins) for w in windows]
        else:
            chosen = [w for w in all_wins if w["mapped"] and w["type"] == "normal" and "minimized" not in w["state"]]
        if not chosen:
            raise DesktopError("There is no window to arrange.", code="no_window")
        frames = layout_frames(layout, len(chosen), b.work_area(), gap)
        placed = []
        for w, frame in zip(chosen, frames):
            assert w is not None
            after = b.move_resize_window(w["id"], frame)
            placed.append({"id": w["id"], "title": w["title"], "requested": frame,
                           "frame": after["frame"] if after else None})
        return {"layout": layout, "windows": placed}

    return await _run(d, act, acting_as="Arranging windows")


# ---- pointer and keyboard -----------------------------------------------------------------------


async def _click(d: Dispatcher, what: str, t: Target, **kw: Any) -> dict[str, Any]:
    started = time.perf_counter()
    out = await _run(d, lambda b: actions.click(b, t, **kw), acting_as=what)
    out["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return out


async def desktop_click(
    d: Dispatcher,
    target: TargetArg = None, ref: RefArg = None, text: TextArg = None, x: XArg = None, y: YArg = None,
    window: WindowArg = None, pid: PidArg = None, ordinal: OrdinalArg = None, method: Method = "auto",
    modifiers: Annotated[list[str] | None, Field(description="Keys held during the click, e.g. ['ctrl'].")] = None,
) -> dict[str, Any]:
    """Click an element: by selector (`target`, scoped by window or pid), by `ref`, by visible `text` (OCR), or at
    x,y as a last resort. A pointer click needs the element SHOWING, sized, on screen and not covered (its window is
    raised once if needed). The answer says the method (accessibility | ocr | coordinates) and the input (pointer |
    action)."""
    return await _click(d, "Clicking", _target(target, ref, text, x, y, window, pid, ordinal), method=method,
                        modifiers=modifiers)


async def desktop_double_click(
    d: Dispatcher,
    target: TargetArg = None, ref: RefArg = None, text: TextArg = None, x: XArg = None, y: YArg = None,
    window: WindowArg = None, pid: PidArg = None, ordinal: OrdinalArg = None,
) -> dict[str, Any]:
    """Double-click an element (by selector, ref, OCR text, or x,y) with the pointer."""
    return await _click(d, "Double-clicking", _target(target, ref, text, x, y, window, pid, ordinal),
                        method="pointer", count=2)


async def desktop_right_click(
    d: Dispatcher,
    target: TargetArg = None, ref: RefArg = None, text: TextArg = None, x: XArg = None, y: YArg = None,
    window: WindowArg = None, pid: PidArg = None, ordinal: OrdinalArg = None,
) -> dict[str, Any]:
    """Right-click an element (by selector, ref, OCR text, or x,y) with the pointer, e.g. to open a context menu."""
    return await _click(d, "Right-clicking", _target(target, ref, text, x, y, window, pid, ordinal),
                        method="pointer", button="right")


class Place(BaseModel):
    """One end of a drag."""

    model_config = ConfigDict(extra="forbid")
    target: Selector | None = Field(None, description="An element by selector.")
    ref: str | None = Field(None, description="An element ref.")
    text: str | None = Field(None, description="Visible text (OCR).")
    x: int | None = Field(None, description="Screen x.")
    y: int | None = Field(None, description="Screen y.")


async def desktop_drag(
    d: Dispatcher,
    start: Annotated[Place, Field(description="Where to press: {target | ref | text | x,y}.")],
    end: Annotated[Place, Field(description="Where to release: {target | ref | text | x,y}.")],
    window: WindowArg = None, pid: PidArg = None,
    button: Annotated[Literal["left", "middle", "right"], Field(description="Button held.")] = "left",
) -> dict[str, Any]:
    """Drag with the pointer from one place to another (press, move in steps, release): elements by selector or ref,
    visible text, or x,y."""
    a = _target(start.target, start.ref, start.text, start.x, start.y, window, pid)
    z = _target(end.target, end.ref, end.text, end.x, end.y, window, pid)
    return await _run(d, lambda b: actions.drag(b, a, z, button), acting_as="Dragging")


async def desktop_scroll(
    d: Dispatcher,
    dy: Annotated[int, Field(ge=-100, le=100, description="Wheel clicks down (negative: up).")] = 3,
    dx: Annotated[int, Field(ge=-100, le=100, description="Wheel clicks right (negative: left).")] = 0,
    target: TargetArg = None, ref: RefArg = None, x: XArg = None, y: YArg = None,
    window: WindowArg = None, pid: PidArg = None,
) -> dict[str, Any]:
    """Scroll with the mouse wheel over an element (selector or ref), a point, or the middle of a window (default:
    the active window)."""
    t = _target(target, ref, None, x, y, window, pid)
    return await _run(d, lambda b: actions.scroll(b, t, dx, dy), acting_as="Scrolling")


async def desktop_type_text(
    d: Dispatcher,
    value: Annotated[str, Field(min_length=1, max_length=20_000, description="Text to type (any Unicode; \\n is "
                                                                             "Enter, \\t is Tab). The audit log "
                                                                             "keeps only its length.")],
    target: TargetArg = None, ref: RefArg = None,
    window: WindowArg = None, pid: PidArg = None, ordinal: OrdinalArg = None,
    replace: Annotated[bool, Field(description="Replace the field's text (select all first) instead of adding.")] = False,
    method: Annotated[Literal["auto", "keyboard", "accessibility"], Field(
        description="auto/keyboard: focus the element, then type key events; accessibility: set the text through the "
                    "element's editable-text interface (no key events).")] = "auto",
) -> dict[str, Any]:
    """Type text into an element (focused first: by selector or ref), or into the focused control of a window, or
    wherever keyboard focus is. For text fields the answer reads the value back (`verified`)."""
    t = _target(target, ref, None, None, None, window, pid, ordinal)
    return await _run(d, lambda b: actions.type_text(b, t, value, replace=replace, method=method),
                      acting_as="Typing")


async def desktop_press_key(
    d: Dispatcher,
    key: Annotated[str, Field(min_length=1, description="A key: Enter, Tab, Escape, Backspace, Delete, Up, Down, "
                                                        "Left, Right, Home, End, PageUp, PageDown, F1…F24, space, a "
                                                        "character, or an X keysym name; a chord like ctrl+a works "
                                                        "too.")],
    repeat: Annotated[int, Field(ge=1, le=100, description="Press it this many times.")] = 1,
    target: TargetArg = None, ref: RefArg = None, window: WindowArg = None, pid: PidArg = None,
) -> dict[str, Any]:
    """Press a key (optionally several times) in the focused control, or after focusing an element or window."""
    keys = parse_chord(key)
    t = _target(target, ref, None, None, None, window, pid)
    return await _run(d, lambda b: actions.press(b, t, keys, repeat), acting_as="Pressing keys")


async def desktop_hotkey(
    d: Dispatcher,
    keys: Annotated[str, Field(min_length=1, description="A chord: keys joined by '+', modifiers first, e.g. "
                                                         "'ctrl+shift+t', 'alt+F4', 'ctrl+plus'.")],
    window: WindowArg = None, pid: PidArg = None,
) -> dict[str, Any]:
    """Press a key chord (modifiers held, key pressed, all released) in the active window, or in `window` after
    activating it."""
    chord = parse_chord(keys)
    t = _target(None, None, None, None, None, window, pid)
    return await _run(d, lambda b: actions.press(b, t, chord, 1), acting_as="Pressing a hotkey")


# ---- seeing -------------------------------------------------------------------------------------


class Region(BaseModel):
    model_config = ConfigDict(extra="forbid")
    x: int
    y: int
    width: int = Field(gt=0)
    height: int = Field(gt=0)


async def desktop_screenshot(
    d: Dispatcher,
    window: WindowArg = None, pid: PidArg = None,
    ref: Annotated[str | None, Field(description="Only this element's bounds.")] = None,
    region: Annotated[Region | None, Field(description="Only this screen region {x, y, width, height}.")] = None,
) -> CallToolResult:
    """A PNG screenshot of the screen, one window (its frame), an element or a region, as an image plus its size,
    scale (image px per screen px) and origin (screen position of the top-left pixel: screen = origin + pixel /
    scale). Windows covered by others show what covers them; the answer lists such windows."""
    def grab(b: Any) -> dict[str, Any]:
        meta: dict[str, Any] = {}
        box: dict[str, int] | None = None
        if ref is not None:
            node = b.element(ref)
            if not node.get("bounds"):
                raise DesktopError(f"Ref {ref} has no on-screen bounds (not showing).", code="not_clickable")
            box = node["bounds"]
            meta["element"] = {k: node[k] for k in ("ref", "role", "name")}
        elif region is not None:
            box = region.model_dump()
        elif window is not None or pid is not None:
            w = _one_window(b, window, pid)
            box = w["frame"]
            meta["window"] = actions.window_row(w)
            above = [o for o in b.windows() if o["z"] < w["z"] and o["mapped"] and "minimized" not in o["state"]
                     and _overlap(o["frame"], box)]
            if above:
                meta["coveredBy"] = [actions.window_row(o) for o in above]
                meta["hint"] = "Other windows overlap it; desktop_activate_window it first for a clean shot."
        shot = b.screenshot(box)
        return {"shot": shot, **meta}

    started = time.perf_counter()
    got = await _run(d, grab)
    shot = got.pop("shot")
    summary = {"width": shot.width, "height": shot.height, "scale": shot.scale,
               "origin": {"x": shot.origin[0], "y": shot.origin[1]}, "bytes": len(shot.png), "format": "png", **got,
               "ms": round((time.perf_counter() - started) * 1000, 1)}
    return CallToolResult(content=[ImageContent(type="image", data=base64.b64encode(shot.png).decode(),
                                                mime_type="image/png"),
                                   TextContent(type="text", text=json.dumps(summary))],
                          structured_content=summary)


def _overlap(a: dict[str, int], b: dict[str, int]) -> bool:
    return a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"] and \
        a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]


async def desktop_accessibility_tree(
    d: Dispatcher,
    window: WindowArg = None, pid: PidArg = None,
    ref: Annotated[str | None, Field(description="Start at this element instead of the window.")] = None,
    depth: Annotated[int, Field(ge=0, le=64, description="Levels below the root to show.")] = 16,
    maxNodes: Annotated[int, Field(ge=1, le=5000, description="Stop after this many nodes.")] = 400,
    interactiveOnly: Annotated[bool, Field(description="Only controls (buttons, fields, links, items…), with the "
                                                       "structure between them folded away.")] = False,
    includeHidden: Annotated[bool, Field(description="Also walk into parts that are not showing.")] = False,
) -> CallToolResult:
    """The accessibility tree of a window (default: the active one), an app (pid) or an element (ref): one line per
    node with role, name, ref, notable states, value, bounds and actions. Refs work in desktop_click and friends and
    fail loudly once their element is gone."""
    def read(b: Any) -> dict[str, Any]:
        w = None
        if window is not None:
            w = actions.resolve_window(b, window, pid)
        elif pid is None and ref is None:
            w = next((x for x in b.windows() if x["active"]), None)
            if w is None:
                raise DesktopError("No window is active; pass window or pid.", code="no_window")
        if w is not None and w["pid"] is not None and w["pid"] not in b.accessible_pids():
            raise DesktopError(f"{actions.scope_text(w, None)} exposes no accessibility tree (Tk, xterm and games do "
                               "not). Use desktop_screenshot, and `text` targets (OCR) to click.",
                               code="no_accessibility")
        out = actions.tree(b, pid=pid, window=w, root=ref, depth=depth, max_nodes=maxNodes,
                           interactive_only=interactiveOnly, include_hidden=includeHidden)
        out["scope"] = actions.scope_text(w, pid) if ref is None else f"element {ref}"
        return out

    out = await _run(d, read)
    text = out.pop("text")
    head = f"{out['scope']} · {out['count']} nodes{' (truncated: raise maxNodes or pass ref)' if out['truncated'] else ''}"
    return CallToolResult(content=[TextContent(type="text", text=head + "\n" + text)], structured_content=out)


async def desktop_find_elements(
    d: Dispatcher,
    target: Annotated[Selector, Field(description="Selector: {role, name | name_contains | name_regex, states, "
                                                  "within, ordinal}.")],
    window: WindowArg = None, pid: PidArg = None,
    limit: Annotated[int, Field(ge=1, le=200, description="At most this many matches in the answer.")] = 20,
) -> dict[str, Any]:
    """Elements matching a selector, in tree order, with ref, role, name, states, bounds, actions and value: cheaper
    than a whole tree. No match is not an error here: the answer lists the nearest candidates instead."""
    def find(b: Any) -> dict[str, Any]:
        w = actions.resolve_window(b, window, pid)
        matches = actions.find_all(b, target, pid, w)
        if target.ordinal is not None and matches:
            try:
                matches = [matches[target.ordinal]]
            except IndexError:
                matches = []
        full = []
        for m in matches[:limit]:
            node = b.element(m["ref"])
            node.update({k: m[k] for k in ("window",) if k in m})
            full.append(node)
        out: dict[str, Any] = {"count": len(matches), "matches": full, "scope": actions.scope_text(w, pid)}
        if not matches:
            from bridge.desktop.selectors import nearest

            out["nearest"] = nearest(target, actions.nearby(b, target, pid, w))
        return out

    return await _run(d, find)


async def desktop_wait_for_window(
    d: Dispatcher,
    title: Annotated[str | None, Field(description="Title contains this (case-insensitive).")] = None,
    titleRegex: Annotated[str | None, Field(description="Or: a Python regex searched in the title.")] = None,
    pid: PidArg = None,
    windowClass: Annotated[str | None, Field(description="WM_CLASS class name equals this (case-insensitive).")] = None,
    state: Annotated[Literal["present", "gone", "active"], Field(
        description="present (appears), gone (disappears), active (has focus).")] = "present",
    timeout: Timeout = 10,
) -> dict[str, Any]:
    """Wait (bounded) until a window matching title / titleRegex / pid / class appears, disappears or becomes active.
    Returns the matching windows; a miss is a wait_timeout error listing the windows that are open."""
    if not any((title, titleRegex, pid, windowClass)):
        raise DesktopError("Give title, titleRegex, pid or windowClass.", code="bad_arguments")
    rx = re.compile(titleRegex) if titleRegex else None

    def matching(wins: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [w for w in wins if (title is None or title.casefold() in w["title"].casefold())
                and (rx is None or rx.search(w["title"])) and (pid is None or w["pid"] == pid)
                and (windowClass is None or (w["class"] or "").casefold() == windowClass.casefold())
                and w["mapped"]]

    started = time.monotonic()
    while True:
        wins = await _run(d, lambda b: b.windows())
        hits = matching(wins)
        done = {"present": bool(hits), "gone": not hits, "active": any(w["active"] for w in hits)}[state]
        if done:
            return {"state": state, "windows": hits, "ms": round((time.monotonic() - started) * 1000)}
        if time.monotonic() - started > timeout:
            raise DesktopError(f"No window became {state} within {timeout:g} s. Open windows: "
                               f"{[actions.window_row(w) for w in wins[:15]]}", code="wait_timeout")
        await asyncio.sleep(0.05)


async def desktop_wait_for_element(
    d: Dispatcher,
    target: Annotated[Selector, Field(description="Selector: {role, name | name_contains | name_regex, states, "
                                                  "within}.")],
    window: WindowArg = None, pid: PidArg = None,
    state: Annotated[Literal["present", "gone", "enabled"], Field(
        description="present (showing), gone (no longer showing), enabled (present and enabled).")] = "present",
    timeout: Timeout = 10,
) -> dict[str, Any]:
    """Wait (bounded) until an element matching the selector is showing, gone, or enabled, polling the accessibility
    tree. Returns the matches (ref, role, name, states, bounds)."""
    started = time.monotonic()
    last_error: str | None = None

    def look(b: Any) -> list[dict[str, Any]]:
        w = actions.resolve_window(b, window, pid)
        return actions.find_all(b, target, pid, w)

    while True:
        try:
            matches = await _run(d, look)
            last_error = None
        except DesktopError as exc:
            if exc.code not in ("no_window", "no_accessibility"):
                raise
            if state == "gone":
                return {"state": state, "matches": [], "count": 0, "ms": round((time.monotonic() - started) * 1000),
                        "note": str(exc)}
            matches, last_error = [], str(exc)
        if state == "enabled":
            matches = [m for m in matches if "enabled" in m["states"]]
        done = bool(matches) if state != "gone" else not matches
        if done:
            refs = [m["ref"] for m in matches[:20]]
            full = await _run(d, lambda b, refs=refs: [b.element(r) for r in refs])
            return {"state": state, "matches": full, "count": len(matches),
                    "ms": round((time.monotonic() - started) * 1000)}
        if time.monotonic() - started > timeout:
            extra = f" Last error: {last_error}" if last_error else ""
            raise DesktopError(f"{target.describe()} did not become {state} within {timeout:g} s.{extra}",
                               code="wait_timeout")
        await asyncio.sleep(0.05)



# ---- recording ----------------------------------------------------------------------------------


async def desktop_start_recording(
    d: Dispatcher,
    maxSeconds: Annotated[float, Field(gt=0, le=recording.MAX_SECONDS, description="Stop by itself after this many "
                                                                                   "seconds.")] = 120,
) -> dict[str, Any]:
    """Start recording the input a human gives the desktop (clicks, typing, hotkeys, window switches), to replay it
    later as desktop_* tool calls. Time-limited; kept in memory only. Input sent by the bridge's own tools is left
    out, and text typed into password fields is never kept. Stop with desktop_stop_recording."""
    desk = _desktop(d)
    desk.require_input("Recording the human's input")
    if desk.recording is not None and desk.recording.active_now:
        raise DesktopError("A recording is already running: stop it with desktop_stop_recording first.",
                           code="recording_active")
    rec = desk.recording = recording.Recording(desk.submit_running, maxSeconds, allowed=lambda: desk.input_allowed)
    try:  # the slot is taken before the first await: a second start meanwhile is refused
        await _run(d, rec.begin)
    except BaseException:
        if desk.recording is rec:
            desk.recording = None
        raise
    return {"recording": True, "maxSeconds": maxSeconds, "since": round(rec.started_at, 3),
            "hint": "Let the human act on the desktop, then call desktop_stop_recording for the steps."}


async def desktop_stop_recording(
    d: Dispatcher,
    save: Annotated[bool, Field(description="Also write the steps as JSON into the bridge's config dir "
                                            "(recordings/); by default nothing is written to disk.")] = False,
) -> dict[str, Any]:
    """Stop the recording (if its time limit has not already) and return its steps: a list of {tool, arguments}
    ready to replay in order, each with `method` (accessibility: a selector {role, name} scoped to its window by
    title; coordinates: x,y, saying why) and `at` (seconds into the recording)."""
    desk = _desktop(d)
    rec = desk.recording
    if rec is None:
        raise DesktopError("Nothing was recorded: call desktop_start_recording first.", code="not_recording")
    out = await asyncio.to_thread(rec.stop)
    if desk.recording is rec:
        desk.recording = None
    if save:
        out["file"] = str(await asyncio.to_thread(recording.save, d.settings.config_dir, out))
    return out


TOOLS = [
    Tool(desktop_status, read_only("Desktop status")),
    Tool(desktop_launch_app, acting("Launch a desktop app", destructive=False)),
    Tool(desktop_open_url, acting("Open a URL in a desktop browser", destructive=False)),
    Tool(desktop_list_apps, read_only("List desktop apps")),
    Tool(desktop_quit_app, acting("Quit a desktop app")),
    Tool(desktop_list_windows, read_only("List desktop windows")),
    Tool(desktop_window_state, acting("Set a window's state", destructive=False)),
    Tool(desktop_activate_window, acting("Activate a window", destructive=False)),
    Tool(desktop_resize_window, acting("Move or resize a window", destructive=False)),
    Tool(desktop_arrange_windows, acting("Arrange windows", destructive=False)),
    Tool(desktop_click, acting("Click on the desktop")),
    Tool(desktop_double_click, acting("Double-click on the desktop")),
    Tool(desktop_right_click, acting("Right-click on the desktop")),
    Tool(desktop_drag, acting("Drag on the desktop")),
    Tool(desktop_scroll, acting("Scroll on the desktop", destructive=False)),
    Tool(desktop_type_text, acting("Type text on the desktop")),
    Tool(desktop_press_key, acting("Press a key on the desktop")),
    Tool(desktop_hotkey, acting("Press a hotkey on the desktop")),
    Tool(desktop_screenshot, read_only("Desktop screenshot")),
    Tool(desktop_accessibility_tree, read_only("Desktop accessibility tree")),
    Tool(desktop_find_elements, read_only("Find desktop elements")),
    Tool(desktop_wait_for_window, read_only("Wait for a window")),
    Tool(desktop_wait_for_element, read_only("Wait for a desktop element")),
    Tool(desktop_start_recording, acting("Start recording desktop input", destructive=False)),
    Tool(desktop_stop_recording, acting("Stop recording desktop input", destructive=False)),
]
