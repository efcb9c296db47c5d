"""desktop_* tools for windows: list, activate, move/resize, state, arrange, wait for one."""

from __future__ import annotations

import asyncio
import math
import re
import time
from typing import Annotated, Any, Literal

from pydantic import Field

from bridge.desktop import actions
from bridge.desktop.errors import DesktopError
from bridge.desktop.service import Desktop
from bridge.tools.desktop.common import WindowArg, PidArg, Timeout, run, one_window, fresh


async def desktop_list_windows(
    desk: Desktop,
    pid: PidArg = None,
    title: Annotated[str | None, Field(description="Title contains (any case).")] = None,
) -> dict[str, Any]:
    """Windows, topmost first: id, pid, title, class, bounds, state. Other tools take `window`: an id or a title."""
    def read(b: Any) -> dict[str, Any]:
        wins = b.windows()
        info = b.info()
        return {"windows": wins, "screen": info["screen"]}

    out = await run(desk, read)
    wins = [w for w in out["windows"] if (pid is None or w["pid"] == pid)
            and (title is None or title.casefold() in w["title"].casefold())]
    active = next((w["id"] for w in out["windows"] if w["active"]), None)
    return {"windows": wins, "count": len(wins), "active": active, "screen": out["screen"]}


async def desktop_activate_window(desk: Desktop, window: WindowArg = None, pid: PidArg = None) -> dict[str, Any]:
    """Raise and focus a window."""
    def act(b: Any) -> dict[str, Any]:
        w = one_window(b, window, pid)
        ok = b.activate_window(w["id"])
        return {"window": fresh(b, w["id"]), "activated": ok}

    return await run(desk, act, acting_as="Activating a window")


async def desktop_resize_window(
    desk: Desktop,
    window: WindowArg = None,
    pid: PidArg = None,
    x: Annotated[int | None, Field(description="Frame left (screen px); omitted: kept.")] = None,
    y: int | None = None,
    width: Annotated[int | None, Field(gt=0)] = None,
    height: Annotated[int | None, Field(gt=0)] = None,
) -> dict[str, Any]:
    """Move and/or resize a window's frame; answers where it settled."""
    def act(b: Any) -> dict[str, Any]:
        w = one_window(b, window, pid)
        f = w["frame"]
        want = {"x": f["x"] if x is None else x, "y": f["y"] if y is None else y,
                "width": f["width"] if width is None else width, "height": f["height"] if height is None else height}
        after = b.move_resize_window(w["id"], want)
        out: dict[str, Any] = {"window": after, "requested": want}
        if after is not None and after["frame"] != want:
            out["note"] = "The window settled elsewhere than asked (a minimum size, or the screen edge)."
        return out

    return await run(desk, act, acting_as="Resizing a window")


async def desktop_window_state(
    desk: Desktop,
    state: Annotated[Literal["maximized", "minimized", "fullscreen", "above", "normal"], Field(
        description="above: on top; normal: undo.")],
    window: WindowArg = None,
    pid: PidArg = None,
) -> dict[str, Any]:
    """Maximize, minimize, fullscreen, keep above, or restore a window."""
    def act(b: Any) -> dict[str, Any]:
        w = one_window(b, window, pid)
        b.set_window_state(w["id"], state)
        return {"window": fresh(b, w["id"])}

    return await run(desk, act, acting_as="Changing a window's state")


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
    desk: Desktop,
    layout: Literal["side_by_side", "stacked", "cascade", "grid"],
    windows: Annotated[list[int | str] | None, Field(
        description="Ids or titles, in order (default: all visible).")] = None,
    gap: Annotated[int, Field(ge=0, le=200)] = 0,
) -> dict[str, Any]:
    """Arrange windows side by side, stacked, cascaded or in a grid."""
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

    return await run(desk, act, acting_as="Arranging windows")


async def desktop_wait_for_window(
    desk: Desktop,
    title: Annotated[str | None, Field(description="Contains (any case).")] = None,
    titleRegex: Annotated[str | None, Field(description="Python regex.")] = None,
    pid: PidArg = None,
    windowClass: Annotated[str | None, Field(description="WM_CLASS (any case).")] = None,
    state: Literal["present", "gone", "active"] = "present",
    timeout: Timeout = 10,
) -> dict[str, Any]:
    """Wait until a window (title, titleRegex, pid, class) appears, goes or is active."""
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
        wins = await run(desk, lambda b: b.windows())
        hits = matching(wins)
        done = {"present": bool(hits), "gone": not hits, "active": any(w["active"] for w in hits)}[state]
        if done:
            return {"state": state, "windows": hits, "ms": round((time.monotonic() - started) * 1000)}
        if time.monotonic() - started > timeout:
            raise DesktopError(f"No window became {state} within {timeout:g} s. Open windows: "
                               f"{[actions.window_row(w) for w in wins[:15]]}", code="wait_timeout")
        await asyncio.sleep(0.05)
