"""What the human's input met, looked at on the desktop worker as each event arrives: the window and element under a
click, where keyboard focus is, and the selector that finds that element again (bridge/desktop/recording/recorder.py)."""

from __future__ import annotations

import time
from typing import Any

from bridge.desktop import selectors
from bridge.desktop.actions import interactive
from bridge.desktop.errors import DesktopError

#: Roles that take typed text: typing after focusing one of these targets it by selector.
TEXT_ROLES = {"text", "entry", "password text", "terminal", "document text", "editbar", "combo box", "spin button"}


def is_password(node: dict[str, Any] | None) -> bool:
    if not node:
        return False
    states = " ".join(node.get("states") or [])
    return selectors._norm(node.get("role") or "") == "passwordtext" or "password" in states or "protected" in states


def selector_for(b: Any, window: dict[str, Any], node: dict[str, Any]) -> dict[str, Any] | None:
    """{role, name[, ordinal]} that finds this node again in its window, or None if the window's showing elements do
    not include it."""
    role, name = node.get("role") or "", (node.get("name") or "").strip()
    clean = " ".join(name.split()).casefold()
    same = [n for n in b.candidates(pid=None, window=window, within=None, roles=[selectors._norm(role)])
            if " ".join((n.get("name") or "").split()).casefold() == clean]
    at = next((i for i, n in enumerate(same) if n["ref"] == node["ref"]), None)
    if at is None:
        return None
    sel: dict[str, Any] = {"role": role}
    if name:
        sel["name"] = name
    if len(same) > 1:
        sel["ordinal"] = at
    return sel


def key_context(b: Any) -> dict[str, Any]:
    """Where a key goes, looked at as it arrives (on the desktop worker): the windows, the focused element of the
    active one (with a selector if it takes text), and whether that window shows a password field."""
    out: dict[str, Any] = {"at": time.monotonic(), "windows": b.windows(), "focused": None, "selector": None,
                           "hasPassword": False}
    active = next((w for w in out["windows"] if w["active"]), None)
    if active is None or active.get("pid") is None:
        return out
    try:
        node = out["focused"] = b.focused_element(active)
        if node is not None and node.get("role") in TEXT_ROLES:
            out["selector"] = selector_for(b, active, node)
        out["hasPassword"] = bool(b.candidates(pid=None, window=active, within=None, roles=["passwordtext"]))
    except DesktopError:
        pass  # no accessibility tree there: typing goes to the window
    return out


def click_target(b: Any, x: int, y: int) -> dict[str, Any]:
    """What a pointer press at x,y hit: {window, node?, selector?, why?} (on the desktop worker)."""
    wins = b.windows()
    win = next((w for w in wins if w["mapped"] and "minimized" not in w["state"]
                and w["frame"]["x"] <= x < w["frame"]["x"] + w["frame"]["width"]
                and w["frame"]["y"] <= y < w["frame"]["y"] + w["frame"]["height"]), None)
    out: dict[str, Any] = {"at": time.monotonic(), "windows": wins, "window": win}
    if win is None:
        return {**out, "why": "no window under the pointer"}
    try:
        hit = b.element_at(win, x, y)
    except DesktopError:
        hit = None
    if hit is None:
        return {**out, "why": "no accessible element under the pointer (the title bar, or an app without an "
                              "accessibility tree)"}
    for n in [hit["node"], *hit["ancestors"]]:
        if selectors._norm(n.get("role") or "") in ("frame", "window", "dialog"):
            break
        if interactive(n):
            sel = selector_for(b, win, n)
            if sel is not None:
                return {**out, "node": n, "selector": sel}
            return {**out, "why": f"the {n.get('role')} under the pointer cannot be found again by selector"}
    return {**out, "why": f"no control under the pointer (it is on a {hit['node'].get('role')})"}
