"""Real input and real pixels for a tab whose browser window is on the bridge's desktop (private or attached): the
window found by a marker in its title, the viewport mapped to screen coordinates (window bounds, browser chrome,
devicePixelRatio; the page measures after scrolling), then XTest input or a cut of the desktop's capture.

Used by page_act (trusted input where synthetic events cannot work) and page_screenshot (without the extension).
The Desktop backend is used through its interface only (windows, activate_window, click, chord, type_text,
screenshot)."""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import TYPE_CHECKING, Any

from bridge import errors

if TYPE_CHECKING:
    from bridge.desktop.service import Desktop
    from bridge.tools.page.handle import Page

#: How long the tab's window may take to show the marked title.
FIND_WINDOW_S = 3.0
#: Page key names (KeyboardEvent.key, as page_act takes them) -> the desktop family's key names.
KEY_NAMES = {"control": "ctrl", "arrowdown": "down", "arrowup": "up", "arrowleft": "left", "arrowright": "right",
             " ": "space", "meta": "super", "pageup": "pageup", "pagedown": "pagedown"}


def running(page: Page) -> Desktop | None:
    """The bridge's desktop when it is running (a browser window can only be on it then), else None."""
    desk = page.desktop
    if desk is None or desk.backend is None or not getattr(desk.backend, "alive", lambda: True)():
        return None
    return desk


def screen_point(window: dict[str, Any], vp: dict[str, Any], x: float, y: float) -> tuple[int, int]:
    """A point in the viewport (CSS px) -> screen coordinates: the viewport sits at the bottom of the window's client
    area, centred across it, inside the browser's own border (as wide at the bottom as at the sides; the tab strip
    and toolbar above it), scaled by devicePixelRatio."""
    b = window["bounds"]
    dpr = float(vp["devicePixelRatio"]) or 1.0
    border = max(0.0, (b["width"] - vp["innerWidth"] * dpr) / 2)
    left = b["x"] + border
    top = b["y"] + b["height"] - border - vp["innerHeight"] * dpr
    return round(left + x * dpr), round(top + y * dpr)


def screen_box(window: dict[str, Any], vp: dict[str, Any], box: dict[str, float] | None) -> dict[str, int]:
    """A box in the viewport (CSS px; None: the whole viewport) -> a screen region."""
    box = box or {"x": 0, "y": 0, "width": vp["innerWidth"], "height": vp["innerHeight"]}
    dpr = float(vp["devicePixelRatio"]) or 1.0
    x, y = screen_point(window, vp, box["x"], box["y"])
    return {"x": x, "y": y, "width": max(1, round(box["width"] * dpr)), "height": max(1, round(box["height"] * dpr))}


async def locate(page: Page, desk: Desktop) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the tab's browser window, its viewport) — the window whose title shows a marker the tab put in front of its
    own title; [not_on_desktop] when no window on the desktop shows it within FIND_WINDOW_S."""
    tab = page.tab
    mark = "dbg-" + secrets.token_hex(4)
    vp = await tab.call("viewport", {"mark": mark}, 10)
    try:
        deadline = time.monotonic() + FIND_WINDOW_S
        while True:
            wins = await desk.run(lambda b: b.windows(), 10)
            found = next((w for w in wins if mark in str(w.get("title") or "")), None)
            if found is not None:
                return found, vp
            if time.monotonic() >= deadline:
                break
            await asyncio.sleep(0.05)  # the window manager updates the title on its own time
    finally:
        await tab.call("viewport", {}, 10)
    front = "" if vp.get("visible") else " The tab is not the one in front of its window (a hidden tab's title is not shown): bring it to front."
    raise errors.BridgeError(
        f"This tab's browser window is not on the bridge's desktop (no window there showed its title within "
        f"{FIND_WINDOW_S:g} s).{front} Real input through the desktop needs the page open in a browser on that "
        "desktop: desktop_open_url opens one on the private desktop.", code="not_on_desktop")


def x_keys(chord: str) -> list[str]:
    """'Control+End' -> ['ctrl', 'End']: page key names as the desktop family names them."""
    parts = ["+"] if chord == "+" else chord.split("+")
    return [KEY_NAMES.get(p.lower(), p) for p in parts if p]


async def send(page: Page, desk: Desktop, pending: dict[str, Any]) -> str:
    """Send one handed-over action as real input into the tab's window; '' when sent, else why it was not."""
    try:
        desk.require_input("Real input into the page's browser window")
        window, vp = await locate(page, desk)
    except errors.BridgeError as exc:  # consent, a backend error (DesktopError), no window: the act's reason
        return str(exc)
    kind = pending["action"]
    x, y = screen_point(window, vp, float(pending["x"]), float(pending["y"]))
    wid = window["id"]

    def run(b: Any) -> None:
        b.activate_window(wid)
        if kind in ("click", "dblclick", "check", "uncheck"):
            for i in range(int(pending.get("count") or 1)):
                if i:  # clicks stamped the same instant are one click to Chromium, not a double-click
                    time.sleep(0.03)
                b.click(x, y, "left", 1, [])
        elif kind == "press":
            b.chord(x_keys(str(pending.get("key") or "Enter")))
        elif kind == "type":
            b.type_text(str(pending.get("text") or ""))
        elif kind == "drag":  # a press, moves with the button held (thresholds, HTML5 drag start), a release
            end = pending.get("to") or {}
            x2, y2 = screen_point(window, vp, float(end.get("x", pending["x"])), float(end.get("y", pending["y"])))
            b.drag(x, y, x2, y2, "left")
        elif kind == "fill":
            b.chord(["ctrl", "a"])
            text = str(pending.get("text") or "")
            if text:
                b.type_text(text)
            else:
                b.chord(["Delete"])
        else:
            raise errors.BridgeError(f"{kind} is not sent through the desktop (not built yet).", code="not_available")

    try:
        await desk.run(run, 30, acting=True)
    except errors.BridgeError as exc:
        return str(exc)
    return ""


async def screenshot(page: Page, desk: Desktop, shot: dict[str, Any]) -> dict[str, Any]:
    """The tab's viewport (or the box the page answered `shot` with) as real pixels cut from the desktop's capture
    of its window."""
    box = shot.get("frameBox") or shot.get("box")
    window, vp = await locate(page, desk)
    if not vp.get("visible"):
        raise errors.BridgeError("The tab is not the one in front of its window, so its pixels are not on screen. "
                                 "Bring it to front and retry.", code="not_visible")
    region = screen_box(window, vp, box)
    got = await desk.run(lambda b: b.screenshot(region), 30)
    return {"png": got.png, "width": got.width, "height": got.height, "box": box,
            "viewport": {"width": vp["innerWidth"], "height": vp["innerHeight"]},
            "devicePixelRatio": vp["devicePixelRatio"], "screen": region, "via": "desktop"}
