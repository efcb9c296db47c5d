"""desktop_* tools that send input: clicks, drag, scroll, typing, keys."""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bridge.desktop import actions
from bridge.desktop.actions import Target
from bridge.desktop.keyboard.keys import parse_chord
from bridge.desktop.selectors import Selector
from bridge.desktop.service import Desktop
from bridge.tools.desktop.common import (
    Sel,
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
    modifiers: Annotated[list[str] | None, Field(description="Held, e.g. ['ctrl'].")] = None,
) -> dict[str, Any]:
    """Click an element by selector (`target`), `ref`, OCR `text`, or x,y; the answer says how."""
    return await _click(desk, "Clicking", target_of(target, ref, text, x, y, window, pid, ordinal), method=method,
                        modifiers=modifiers)


async def desktop_double_click(
    desk: Desktop,
    target: TargetArg = None, ref: RefArg = None, text: TextArg = None, x: XArg = None, y: YArg = None,
    window: WindowArg = None, pid: PidArg = None, ordinal: OrdinalArg = None,
) -> dict[str, Any]:
    """Double-click an element (as desktop_click), with the pointer."""
    return await _click(desk, "Double-clicking", target_of(target, ref, text, x, y, window, pid, ordinal),
                        method="pointer", count=2)


async def desktop_right_click(
    desk: Desktop,
    target: TargetArg = None, ref: RefArg = None, text: TextArg = None, x: XArg = None, y: YArg = None,
    window: WindowArg = None, pid: PidArg = None, ordinal: OrdinalArg = None,
) -> dict[str, Any]:
    """Right-click an element (as desktop_click), e.g. for a context menu."""
    return await _click(desk, "Right-clicking", target_of(target, ref, text, x, y, window, pid, ordinal),
                        method="pointer", button="right")


class Place(BaseModel):
    """One end of a drag."""

    model_config = ConfigDict(extra="forbid")
    target: Sel | None = None
    ref: str | None = None
    text: str | None = None  # visible text, found by OCR
    x: int | None = None
    y: int | None = None


async def desktop_drag(
    desk: Desktop,
    start: Annotated[Place, Field(description="Where to press: {target | ref | text | x,y}.")],
    end: Annotated[Place, Field(description="Where to release: {target | ref | text | x,y}.")],
    window: WindowArg = None, pid: PidArg = None,
    button: Literal["left", "middle", "right"] = "left",
) -> dict[str, Any]:
    """Drag with the pointer between two places (selector, ref, OCR text, or x,y)."""
    a = target_of(start.target, start.ref, start.text, start.x, start.y, window, pid)
    z = target_of(end.target, end.ref, end.text, end.x, end.y, window, pid)
    return await run(desk, lambda b: actions.drag(b, a, z, button), acting_as="Dragging")


async def desktop_scroll(
    desk: Desktop,
    dy: Annotated[int, Field(ge=-100, le=100, description="+down, -up.")] = 3,
    dx: Annotated[int, Field(ge=-100, le=100, description="+right, -left.")] = 0,
    target: TargetArg = None, ref: RefArg = None, x: XArg = None, y: YArg = None,
    window: WindowArg = None, pid: PidArg = None,
) -> dict[str, Any]:
    """Scroll the wheel over an element, a point or a window."""
    t = target_of(target, ref, None, x, y, window, pid)
    return await run(desk, lambda b: actions.scroll(b, t, dx, dy), acting_as="Scrolling")


async def desktop_type_text(
    desk: Desktop,
    value: Annotated[str, Field(min_length=1, max_length=20_000, description="Any Unicode; \\n Enter, \\t Tab.")],
    target: TargetArg = None, ref: RefArg = None,
    window: WindowArg = None, pid: PidArg = None, ordinal: OrdinalArg = None,
    replace: Annotated[bool, Field(description="Select all first.")] = False,
    method: Annotated[Literal["auto", "keyboard", "accessibility"], Field(
        description="accessibility: set the text, no key events.")] = "auto",
) -> dict[str, Any]:
    """Type into an element (focused first), a window, or the focus; fields are read back."""
    t = target_of(target, ref, None, None, None, window, pid, ordinal)
    return await run(desk, lambda b: actions.type_text(b, t, value, replace=replace, method=method),
                      acting_as="Typing")


async def desktop_press_key(
    desk: Desktop,
    key: Annotated[str, Field(min_length=1, description="Enter, Tab, F5, a character, a keysym or chord (ctrl+a).")],
    repeat: Annotated[int, Field(ge=1, le=100)] = 1,
    target: TargetArg = None, ref: RefArg = None, window: WindowArg = None, pid: PidArg = None,
) -> dict[str, Any]:
    """Press a key (or chord) in an element, a window, or wherever focus is."""
    keys = parse_chord(key)
    t = target_of(target, ref, None, None, None, window, pid)
    return await run(desk, lambda b: actions.press(b, t, keys, repeat), acting_as="Pressing keys")


async def desktop_hotkey(
    desk: Desktop,
    keys: Annotated[str, Field(min_length=1, description="E.g. 'ctrl+shift+t', 'alt+F4'.")],
    window: WindowArg = None, pid: PidArg = None,
) -> dict[str, Any]:
    """Press a key chord, e.g. ctrl+shift+t, in a window or wherever focus is."""
    chord = parse_chord(keys)
    t = target_of(None, None, None, None, None, window, pid)
    return await run(desk, lambda b: actions.press(b, t, chord, 1), acting_as="Pressing a hotkey")
