"""What desktop tools do, written once over the backend interface: find windows and elements, check a target can take
a pointer click, click/type/drag/scroll, and say which method was used.

Runs on the desktop worker thread (every function takes the backend first).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from bridge.desktop import ocr, selectors
from bridge.desktop.errors import DesktopError
from bridge.desktop.selectors import Selector

FIND_MAX_NODES = 5000


# ---- windows ------------------------------------------------------------------------------------


def window_row(w: dict[str, Any]) -> dict[str, Any]:
    return {k: w[k] for k in ("id", "title", "pid", "class") if k in w}


def resolve_window(b: Any, window: int | str | None, pid: int | None = None,
                   wins: list[dict[str, Any]] | None = None) -> dict[str, Any] | None:
    """A window by id (number or '0x…'), or by title text (exact beats contains; must be one), optionally within a
    pid. None when neither is given."""
    if window is None:
        return None
    wins = b.windows() if wins is None else wins
    pool = [w for w in wins if pid is None or w["pid"] == pid]
    wid: int | None = None
    if isinstance(window, int):
        wid = window
    elif re.fullmatch(r"\s*(0x[0-9a-fA-F]+|\d+)\s*", window):
        wid = int(window.strip(), 0)
    if wid is not None:
        for w in pool:
            if w["id"] == wid:
                return w
        raise DesktopError(f"No window {window} is open{f' for pid {pid}' if pid else ''} (it may have closed; ids "
                           f"are reused). Open windows: {[window_row(w) for w in wins[:15]]}", code="no_window")
    text = " ".join(str(window).split()).casefold()
    exact = [w for w in pool if " ".join(w["title"].split()).casefold() == text]
    hits = exact or [w for w in pool if text in w["title"].casefold()]
    if len(hits) == 1:
        return hits[0]
    if not hits:
        raise DesktopError(f"No window title contains {window!r}{f' for pid {pid}' if pid else ''}. Open windows: "
                           f"{[window_row(w) for w in wins[:15]]}", code="no_window")
    raise DesktopError(f"{len(hits)} windows match {window!r}: {[window_row(w) for w in hits[:15]]}. Pass the window "
                       "id instead (or a pid).", code="ambiguous_window")


def windows_of(b: Any, pid: int) -> list[dict[str, Any]]:
    return [w for w in b.windows() if w["pid"] == pid]


def scope_text(window: dict[str, Any] | None, pid: int | None) -> str:
    if window is not None:
        return f"window {window['id']} ({window['title']!r}, pid {window['pid']})"
    if pid is not None:
        return f"pid {pid}"
    return "all apps on the desktop"


# ---- elements -----------------------------------------------------------------------------------


def scoped_elements(b: Any, pid: int | None, window: dict[str, Any] | None, within: str | None,
                    ) -> list[dict[str, Any]]:
    nodes, _ = b.elements(pid=pid, window=window, within=within, depth=64, max_nodes=FIND_MAX_NODES,
                          include_hidden=False, full=False)
    return nodes


def _within_ref(b: Any, sel: Selector, pid: int | None, window: dict[str, Any] | None) -> str | None:
    if sel.within is None:
        return None
    if isinstance(sel.within, str):
        return sel.within
    inner = sel.within
    selectors.check(inner)
    return find_one(b, inner, pid, window)["ref"]


def find_all(b: Any, sel: Selector, pid: int | None, window: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The showing elements a selector matches in a scope (ref, role, name, states), in tree order."""
    selectors.check(sel)
    within = _within_ref(b, sel, pid, window)
    roles = sorted(selectors.roles_for(sel.role)) if sel.role else None
    match = selectors.matcher(sel)
    return [n for n in b.candidates(pid=pid, window=window, within=within, roles=roles) if match(n)]


def nearby(b: Any, sel: Selector, pid: int | None, window: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Every showing element in the scope: what a no_match error ranks its nearest candidates from."""
    return scoped_elements(b, pid, window, _within_ref(b, sel, pid, window))


def find_one(b: Any, sel: Selector, pid: int | None, window: dict[str, Any] | None) -> dict[str, Any]:
    """The one element a selector names (full node), or ambiguous / no_match listing candidates."""
    matches = find_all(b, sel, pid, window)
    nodes = nearby(b, sel, pid, window) if not matches else []
    if not matches and not nodes and (pid is not None or window is not None):
        target_pid = pid if pid is not None else (window or {}).get("pid")
        if target_pid is not None and target_pid not in b.accessible_pids():
            raise DesktopError(
                f"{scope_text(window, pid)} exposes no accessibility tree (Tk, xterm and games do not). Target it by "
                "visible text with `text` (OCR), or by x,y from desktop_screenshot.", code="no_accessibility")
    chosen = selectors.pick(sel, matches, nodes, scope_text(window, pid))
    node = b.element(chosen["ref"])
    node.update({k: chosen[k] for k in ("window", "depth") if k in chosen})
    return node


# ---- targets ------------------------------------------------------------------------------------


@dataclass
class Target:
    """What a pointer/keyboard tool aims at: a ref, a selector, visible text (OCR), or raw x,y (last resort)."""

    ref: str | None = None
    selector: Selector | None = None
    text: str | None = None
    x: int | None = None
    y: int | None = None
    window: int | str | None = None
    pid: int | None = None
    ordinal: int | None = None

    def given(self) -> list[str]:
        out = [k for k in ("ref", "selector", "text") if getattr(self, k) is not None]
        if self.x is not None or self.y is not None:
            out.append("x,y")
        return out


@dataclass
class Located:
    method: str  # accessibility | ocr | coordinates
    point: tuple[int, int] | None
    node: dict[str, Any] | None = None
    window: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def answer(self) -> dict[str, Any]:
        out: dict[str, Any] = {"method": self.method}
        if self.node is not None:
            out["element"] = {k: self.node[k] for k in ("ref", "role", "name", "states", "bounds", "window", "pid")
                              if k in self.node}
        if self.window is not None and self.node is None:
            out["window"] = window_row(self.window)
        if self.point is not None:
            out["point"] = {"x": self.point[0], "y": self.point[1]}
        out.update(self.extra)
        return out


def center(bounds: dict[str, int]) -> tuple[int, int]:
    return bounds["x"] + bounds["width"] // 2, bounds["y"] + bounds["height"] // 2


def locate(b: Any, t: Target, *, required: bool = True) -> Located | None:
    given = t.given()
    if len(given) > 1:
        raise DesktopError(f"Give one target, not {' and '.join(given)}: a ref, a selector (`target`), visible `text`, "
                           "or x,y.", code="bad_arguments")
    window = resolve_window(b, t.window, t.pid)
    pid = t.pid if t.pid is not None else (window or {}).get("pid") if window else None
    if t.ref is not None:
        node = b.element(t.ref)
        return Located("accessibility", None, node, window)
    if t.selector is not None:
        sel = t.selector
        if t.ordinal is not None and sel.ordinal is None:
            sel = sel.model_copy(update={"ordinal": t.ordinal})
        try:
            node = find_one(b, sel, pid, window)
        except DesktopError as exc:
            name = sel.name or sel.name_contains
            if exc.code == "no_accessibility" and name and ocr.available():
                hit = ocr_one(b, name, window, pid, sel.ordinal)
                hit.extra["fallback"] = "the app exposes no accessibility tree; found the name on screen by OCR"
                return hit
            raise
        return Located("accessibility", None, node, window)
    if t.text is not None:
        return ocr_one(b, t.text, window, pid, t.ordinal)
    if t.x is not None or t.y is not None:
        if t.x is None or t.y is None:
            raise DesktopError("Give both x and y (screen coordinates).", code="bad_arguments")
        return Located("coordinates", (t.x, t.y), None, window)
    if required:
        raise DesktopError("Say what to act on: `target` (a selector like {\"role\": \"button\", \"name\": \"OK\"} with "
                           "`window` or `pid`), a `ref` from desktop_find_elements, visible `text` (OCR), or x,y as a "
                           "last resort.", code="bad_arguments")
    return Located("window" if window else "focus", None, None, window)


def ocr_one(b: Any, text: str, window: dict[str, Any] | None, pid: int | None, ordinal: int | None) -> Located:
    if window is None and pid is not None:
        mine = windows_of(b, pid)
        window = mine[0] if len(mine) == 1 else None
    region = window["frame"] if window is not None else None
    shot = b.screenshot(region)
    hits = ocr.find(shot, text)
    where = scope_text(window, None) if window else "the screen"
    if not hits:
        raise DesktopError(f"OCR found no text {text!r} in {where}. Check desktop_screenshot; OCR misses tiny or "
                           "low-contrast text.", code="no_match")
    if len(hits) > 1 and ordinal is None:
        raise DesktopError(f"OCR found {text!r} {len(hits)} times in {where}: {hits[:10]}. Add ordinal (0 = first, "
                           "top-left order) or scope it to a window.", code="ambiguous")
    hits.sort(key=lambda h: (h["bounds"]["y"], h["bounds"]["x"]))
    try:
        hit = hits[ordinal or 0]
    except IndexError:
        raise DesktopError(f"ordinal {ordinal} is out of range: OCR found {len(hits)} match(es).",
                           code="no_match") from None
    return Located("ocr", center(hit["bounds"]), None, window,
                   {"ocr": {"text": hit["text"], "confidence": hit["conf"], "bounds": hit["bounds"]}})


def clickable_point(b: Any, node: dict[str, Any], activate: bool = True) -> tuple[int, int]:
    """The center of an element that a pointer click can reach: SHOWING, sized, on screen and not under another
    app's window (raising its own window once if needed). Raises not_clickable / obscured otherwise."""
    states = set(node.get("states") or ())
    bounds = node.get("bounds")
    what = f"{node.get('role')} {node.get('name')!r} ({node.get('ref')})"
    if "showing" not in states or not bounds or bounds["width"] <= 0 or bounds["height"] <= 0:
        raise DesktopError(f"{what} is not on screen (states {sorted(states)}, bounds {bounds}), so a pointer click "
                           "could hit something else. Bring it into view (activate its window, scroll, open its "
                           "menu), or use method='accessibility' to run its accessible action.", code="not_clickable")
    x, y = center(bounds)
    info = b.info()
    sw, sh = info["screen"]["width"], info["screen"]["height"]
    if not (0 <= x < sw and 0 <= y < sh):
        raise DesktopError(f"{what} is off screen at {x},{y} (screen {sw}x{sh}). Move its window "
                           "(desktop_resize_window) or use method='accessibility'.", code="not_clickable")
    pid = node.get("pid")
    for attempt in (0, 1):
        wins = b.windows()
        top = next((w for w in wins if w["mapped"] and "minimized" not in w["state"]
                    and w["frame"]["x"] <= x < w["frame"]["x"] + w["frame"]["width"]
                    and w["frame"]["y"] <= y < w["frame"]["y"] + w["frame"]["height"]), None)
        if pid is None or (top is not None and top["pid"] == pid):
            return x, y
        own = node.get("window")
        mine = [w for w in wins if w["pid"] == pid and (own is None or w["id"] == own)]
        if attempt == 0 and activate and mine:
            b.activate_window(mine[0]["id"])
            continue
        cover = window_row(top) if top else "no window of its app"
        raise DesktopError(f"{what} is covered at {x},{y} by {cover}. Activate its window (desktop_activate_window) or "
                           "use method='accessibility'.", code="obscured")
    return x, y


def element_window(b: Any, node: dict[str, Any]) -> dict[str, Any] | None:
    wins = b.windows()
    if node.get("window") is not None:
        for w in wins:
            if w["id"] == node["window"]:
                return w
    mine = [w for w in wins if w["pid"] == node.get("pid")]
    if node.get("bounds"):
        x, y = center(node["bounds"])
        inside = [w for w in mine if w["frame"]["x"] <= x < w["frame"]["x"] + w["frame"]["width"]
                  and w["frame"]["y"] <= y < w["frame"]["y"] + w["frame"]["height"]]
        if inside:
            return inside[0]
    return mine[0] if len(mine) == 1 else None


# ---- acting -------------------------------------------------------------------------------------


def click(b: Any, t: Target, *, button: str = "left", count: int = 1, method: str = "auto",
          modifiers: list[str] | None = None) -> dict[str, Any]:
    loc = locate(b, t)
    assert loc is not None
    if loc.node is not None:
        node = loc.node
        semantic_ok = button == "left" and count == 1 and not modifiers
        if method == "accessibility":
            if not semantic_ok:
                raise DesktopError("method='accessibility' runs the element's own action: only a plain left click.",
                                   code="bad_arguments")
            action = b.element_action(node["ref"], ("click", "press", "activate", "toggle", "jump", "open"))
            return {**loc.answer(), "input": "action", "action": action}
        try:
            loc.point = clickable_point(b, node)
        except DesktopError as exc:
            if method == "auto" and semantic_ok and node.get("actions") and exc.code in ("not_clickable", "obscured"):
                action = b.element_action(node["ref"], ("click", "press", "activate", "toggle", "jump", "open"))
                return {**loc.answer(), "input": "action", "action": action,
                        "why": f"a pointer click could not reach it ({exc.code}), so its accessible action ran"}
            raise
    elif method == "accessibility":
        raise DesktopError(f"method='accessibility' needs an element (ref or selector); this target was found by "
                           f"{loc.method}.", code="bad_arguments")
    assert loc.point is not None
    b.click(loc.point[0], loc.point[1], button, count, modifiers or [])
    return {**loc.answer(), "input": "pointer", "button": button, "count": count}


def focus_target(b: Any, loc: Located) -> str:
    """Give keyboard focus to the target's window and element; returns how ('accessibility' | 'pointer' | ...)."""
    if loc.node is not None:
        win = element_window(b, loc.node)
        if win is not None and not win["active"]:
            b.activate_window(win["id"])
        if "focused" in (loc.node.get("states") or []) or b.element_focus(loc.node["ref"]):
            return "accessibility"
        x, y = clickable_point(b, loc.node)
        b.click(x, y, "left", 1, [])
        return "pointer"
    if loc.point is not None:
        b.click(loc.point[0], loc.point[1], "left", 1, [])
        return "pointer"
    if loc.window is not None:
        if not loc.window["active"]:
            b.activate_window(loc.window["id"])
        return "window"
    return "none"


def type_text(b: Any, t: Target, text: str, *, replace: bool = False, method: str = "auto") -> dict[str, Any]:
    """Type into the target and read it back (bridge/desktop/keyboard/type_text.py): not_typed when the field does not
    hold it."""
    from bridge.desktop.keyboard import type_text as typing_

    loc = locate(b, t, required=False)
    assert loc is not None
    if method == "accessibility" and loc.node is None:
        raise DesktopError("method='accessibility' sets the text of an element: give a ref or selector.",
                           code="bad_arguments")
    got = typing_.type_into(b, loc.node, lambda: focus_target(b, loc), text, replace=replace, method=method)
    return {**loc.answer(), **got}


def press(b: Any, t: Target, keys: list[str], repeat: int = 1) -> dict[str, Any]:
    loc = locate(b, t, required=False)
    assert loc is not None
    focus = focus_target(b, loc) if (loc.node or loc.point or loc.window) else "none"
    for _ in range(repeat):
        b.chord(keys)
    return {**loc.answer(), "input": "keyboard", "keys": "+".join(keys), "repeat": repeat, "focus": focus}


def point_of(b: Any, t: Target) -> Located:
    loc = locate(b, t)
    assert loc is not None
    if loc.node is not None:
        loc.point = clickable_point(b, loc.node)
    return loc


def drag(b: Any, start: Target, end: Target, button: str = "left") -> dict[str, Any]:
    a, z = point_of(b, start), point_of(b, end)
    assert a.point is not None and z.point is not None
    b.drag(a.point[0], a.point[1], z.point[0], z.point[1], button)
    return {"method": a.method if a.method == z.method else f"{a.method}+{z.method}", "input": "pointer",
            "from": a.answer(), "to": z.answer()}


def scroll(b: Any, t: Target, dx: int, dy: int) -> dict[str, Any]:
    loc = locate(b, t, required=False)
    assert loc is not None
    if loc.node is not None:
        loc.point = clickable_point(b, loc.node)
    elif loc.point is None:
        win = loc.window or next((w for w in b.windows() if w["active"]), None)
        if win is None:
            raise DesktopError("Say where to scroll: a target, a window, or x,y.", code="bad_arguments")
        loc.point = center(win["bounds"])
        loc.window = win
    b.scroll(loc.point[0], loc.point[1], dx, dy)
    return {**loc.answer(), "input": "pointer", "dx": dx, "dy": dy}


# ---- trees --------------------------------------------------------------------------------------

QUIET_STATES = {"enabled", "sensitive", "visible", "showing", "focusable", "selectable", "multi-line",
                "editable", "active", "iconified", "collapsed"}


def interactive(node: dict[str, Any]) -> bool:
    return bool(node.get("actions")) or selectors._norm(node.get("role") or "") in selectors.INTERACTIVE_ROLES or \
        "focusable" in (node.get("states") or [])


def tree(b: Any, *, pid: int | None, window: dict[str, Any] | None, root: str | None, depth: int, max_nodes: int,
         interactive_only: bool, include_hidden: bool) -> dict[str, Any]:
    nodes, truncated = b.elements(pid=pid, window=window, within=root, depth=depth, max_nodes=max_nodes,
                                  include_hidden=include_hidden, full=True)
    if interactive_only:
        kept, stack = [], []
        for n in nodes:
            while stack and stack[-1] >= n["depth"]:
                stack.pop()
            if interactive(n):
                kept.append({**n, "depth": len(stack)})
                stack.append(n["depth"])
        nodes = kept
    lines = [render(n) for n in nodes]
    return {"nodes": nodes, "count": len(nodes), "truncated": truncated, "text": "\n".join(lines)}


def render(n: dict[str, Any]) -> str:
    parts = ["  " * n.get("depth", 0) + n["role"]]
    if n.get("name"):
        parts.append(repr(n["name"]) if len(n["name"]) <= 80 else repr(n["name"][:80] + "…"))
    parts.append(f"[{n['ref']}]")
    states = [s for s in n.get("states") or [] if s not in QUIET_STATES]
    if "enabled" not in (n.get("states") or []) and interactive(n):
        states.append("disabled")
    if states:
        parts.append("(" + ", ".join(states) + ")")
    if n.get("value") not in (None, ""):
        v = str(n["value"])
        parts.append("value=" + repr(v if len(v) <= 60 else v[:60] + "…"))
    b = n.get("bounds")
    if b:
        parts.append(f"@{b['x']},{b['y']} {b['width']}x{b['height']}")
    if n.get("actions"):
        parts.append("actions=" + ",".join(n["actions"]))
    if n.get("depth", 0) == 0 and n.get("window") is not None:
        parts.append(f"window={n['window']}")
    return " ".join(parts)
