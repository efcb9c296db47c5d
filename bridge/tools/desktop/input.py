"""desktop_* tools that send input: clicks, drag, scroll, typing, keys."""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bridge.desktop import actions
from bridge.desktop.actions import Target
from bridge.desktop.keys import parse_chord
from bridge.desktop.selectors import Selector
from bridge.desktop.service import Desktop
from bridge.tools.desktop.common import (
    WindowArg,
    PidArg,
    TargetArg,
    RefArg,
    TextArg,
    XArg,
    YArg,
    OrdinalArg,
    Method,
    run,
    target_of,
)


async def _click(desk: Desktop, what: str, t: Target, **kw: Any) -> dict[str, Any]:
    started = time.perf_counter()
    out = await run(desk, lambda b: actions.click(b, t, **kw), acting_as=what)
    out["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return out


async def desktop_click(
    desk: Desktop,
    target: TargetArg = None, ref: RefArg = None, text: TextArg = None, x: XArg = None, y: YArg = None,
    window: WindowArg = None, pid: PidArg = None, ordinal: OrdinalArg = None, method: Method = "auto",
    modifiers: Annotated[list[str] | None, Field(description="Keys held during the click, e.g. ['ctrl'].")] = None,
) -> dict[str, Any]:
    """Click an element: by selector (`target`, scoped by window or pid), by `ref`, by visible `text` (OCR), or at
    x,y as a last resort. A pointer click needs the element SHOWING, sized, on screen and not covered (its window is
    raised once if needed). The answer says the method (accessibility | ocr | coordinates) and the input (pointer |
    action)."""
    return await _click(desk, "Clicking", target_of(target, ref, text, x, y, window, pid, ordinal), method=method,
                        modifiers=modifiers)


async def desktop_double_click(
    desk: Desktop,
    target: TargetArg = None, ref: RefArg = None, text: TextArg = None, x: XArg = None, y: YArg = None,
    window: WindowArg = None, pid: PidArg = None, ordinal: OrdinalArg = None,
) -> dict[str, Any]:
    """Double-click an element (by selector, ref, OCR text, or x,y) with the pointer."""
    return await _click(desk, "Double-clicking", target_of(target, ref, text, x, y, window, pid, ordinal),
                        method="pointer", count=2)


async def desktop_right_click(
    desk: Desktop,
    target: TargetArg = None, ref: RefArg = None, text: TextArg = None, x: XArg = None, y: YArg = None,
    window: WindowArg = None, pid: PidArg = None, ordinal: OrdinalArg = None,
) -> dict[str, Any]:
    """Right-click an element (by selector, ref, OCR text, or x,y) with the pointer, e.g. to open a context menu."""
    return await _click(desk, "Right-clicking", target_of(target, ref, text, x, y, window, pid, ordinal),
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
    desk: Desktop,
    start: Annotated[Place, Field(description="Where to press: {target | ref | text | x,y}.")],
    end: Annotated[Place, Field(description="Where to release: {target | ref | text | x,y}.")],
    window: WindowArg = None, pid: PidArg = None,
    button: Annotated[Literal["left", "middle", "right"], Field(description="Button held.")] = "left",
) -> dict[str, Any]:
    """Drag with the pointer from one place to another (press, move in steps, release): elements by selector or ref,
    visible text, or x,y."""
    a = target_of(start.target, start.ref, start.text, start.x, start.y, window, pid)
    z = target_of(end.target, end.ref, end.text, end.x, end.y, window, pid)
    return await run(desk, lambda b: actions.drag(b, a, z, button), acting_as="Dragging")


async def desktop_scroll(
    desk: Desktop,
    dy: Annotated[int, Field(ge=-100, le=100, description="Wheel clicks down (negative: up).")] = 3,
    dx: Annotated[int, Field(ge=-100, le=100, description="Wheel clicks right (negative: left).")] = 0,
    target: TargetArg = None, ref: RefArg = None, x: XArg = None, y: YArg = None,
    window: WindowArg = None, pid: PidArg = None,
) -> dict[str, Any]:
    """Scroll with the mouse wheel over an element (selector or ref), a point, or the middle of a window (default:
    the active window)."""
    t = target_of(target, ref, None, x, y, window, pid)
    return await run(desk, lambda b: actions.scroll(b, t, dx, dy), acting_as="Scrolling")


async def desktop_type_text(
    desk: Desktop,
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
    t = target_of(target, ref, None, None, None, window, pid, ordinal)
    return await run(desk, lambda b: actions.type_text(b, t, value, replace=replace, method=method),
                      acting_as="Typing")


async def desktop_press_key(
    desk: Desktop,
    key: Annotated[str, Field(min_length=1, description="A key: Enter, Tab, Escape, Backspace, Delete, Up, Down, "
                                                        "Left, Right, Home, End, PageUp, PageDown, F1…F24, space, a "
                                                        "character, or an X keysym name; a chord like ctrl+a works "
                                                        "too.")],
    repeat: Annotated[int, Field(ge=1, le=100, description="Press it this many times.")] = 1,
    target: TargetArg = None, ref: RefArg = None, window: WindowArg = None, pid: PidArg = None,
) -> dict[str, Any]:
    """Press a key (optionally several times) in the focused control, or after focusing an element or window."""
    keys = parse_chord(key)
    t = target_of(target, ref, None, None, None, window, pid)
    return await run(desk, lambda b: actions.press(b, t, keys, repeat), acting_as="Pressing keys")


async def desktop_hotkey(
    desk: Desktop,
    keys: Annotated[str, Field(min_length=1, description="A chord: keys joined by '+', modifiers first, e.g. "
                                                         "'ctrl+shift+t', 'alt+F4', 'ctrl+plus'.")],
    window: WindowArg = None, pid: PidArg = None,
) -> dict[str, Any]:
    """Press a key chord (modifiers held, key pressed, all released) in the active window, or in `window` after
    activating it."""
    chord = parse_chord(keys)
    t = target_of(None, None, None, None, None, window, pid)
    return await run(desk, lambda b: actions.press(b, t, chord, 1), acting_as="Pressing a hotkey")
