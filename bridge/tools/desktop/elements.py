"""desktop_* tools over accessibility trees: the tree, finding elements, waiting for one."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any, Literal

from mcp.types import CallToolResult, TextContent
from pydantic import Field

from bridge.desktop import actions
from bridge.desktop.errors import DesktopError
from bridge.desktop.selectors import Selector
from bridge.desktop.service import Desktop
from bridge.tools.desktop.common import PidArg, Sel, Timeout, WindowArg, run


async def desktop_accessibility_tree(
    desk: Desktop,
    window: WindowArg = None, pid: PidArg = None,
    ref: Annotated[str | None, Field(description="Start at this element instead of the window.")] = None,
    depth: Annotated[int, Field(ge=0, le=64)] = 16,
    maxNodes: Annotated[int, Field(ge=1, le=5000)] = 400,
    interactiveOnly: Annotated[bool, Field(description="Only controls.")] = False,
    includeHidden: Annotated[bool, Field(description="Also walk into parts that are not showing.")] = False,
) -> CallToolResult:
    """Accessibility tree of a window (default: active), an app (pid) or an element (ref)."""
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

    out = await run(desk, read)
    text = out.pop("text")
    head = f"{out['scope']} · {out['count']} nodes{' (truncated: raise maxNodes or pass ref)' if out['truncated'] else ''}"
    return CallToolResult(content=[TextContent(type="text", text=head + "\n" + text)], structured_content=out)


async def desktop_find_elements(
    desk: Desktop,
    target: Sel,
    window: WindowArg = None, pid: PidArg = None,
    limit: Annotated[int, Field(ge=1, le=200)] = 20,
) -> dict[str, Any]:
    """Elements matching a selector, e.g. {"role": "button", "name": "OK"}; no match lists the nearest."""
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

    return await run(desk, find)


async def desktop_wait_for_element(
    desk: Desktop,
    target: Sel,
    window: WindowArg = None, pid: PidArg = None,
    state: Literal["present", "gone", "enabled"] = "present",
    timeout: Timeout = 10,
) -> dict[str, Any]:
    """Wait until an element matching the selector is present, gone or enabled."""
    started = time.monotonic()
    last_error: str | None = None

    def look(b: Any) -> list[dict[str, Any]]:
        w = actions.resolve_window(b, window, pid)
        return actions.find_all(b, target, pid, w)

    while True:
        try:
            matches = await run(desk, look)
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
            full = await run(desk, lambda b, refs=refs: [b.element(r) for r in refs])
            return {"state": state, "matches": full, "count": len(matches),
                    "ms": round((time.monotonic() - started) * 1000)}
        if time.monotonic() - started > timeout:
            extra = f" Last error: {last_error}" if last_error else ""
            raise DesktopError(f"{target.describe()} did not become {state} within {timeout:g} s.{extra}",
                               code="wait_timeout")
        await asyncio.sleep(0.05)
