"""desktop_* tools that look at the screen: screenshots, and the text on it (OCR)."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from typing import Annotated, Any

from mcp.types import CallToolResult, ImageContent, TextContent
from pydantic import BaseModel, ConfigDict, Field

from bridge.desktop import actions, ocr
from bridge.desktop.errors import DesktopError
from bridge.desktop.service import Desktop
from bridge.tools.desktop.common import WindowArg, PidArg, run, one_window, overlap


class Region(BaseModel):
    model_config = ConfigDict(extra="forbid")
    x: int
    y: int
    width: int = Field(gt=0)
    height: int = Field(gt=0)


def grab(b: Any, window: int | str | None, pid: int | None, ref: str | None,
         region: Region | None) -> dict[str, Any]:
    """{shot, element | window (+ coveredBy)} for the screen, a window's frame, an element or a region."""
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
        w = one_window(b, window, pid)
        box = w["frame"]
        meta["window"] = actions.window_row(w)
        above = [o for o in b.windows() if o["z"] < w["z"] and o["mapped"] and "minimized" not in o["state"]
                 and overlap(o["frame"], box)]
        if above:
            meta["coveredBy"] = [actions.window_row(o) for o in above]
            meta["hint"] = "Other windows overlap it; desktop_activate_window it first for a clean shot."
    return {"shot": b.screenshot(box), **meta}


async def desktop_screenshot(
    desk: Desktop,
    window: WindowArg = None, pid: PidArg = None,
    ref: Annotated[str | None, Field(description="Only this element.")] = None,
    region: Annotated[Region | None, Field(description="{x, y, width, height}")] = None,
) -> CallToolResult:
    """PNG of the screen, a window, an element or a region, with scale and origin."""
    started = time.perf_counter()
    got = await run(desk, lambda b: grab(b, window, pid, ref, region))
    shot = got.pop("shot")
    summary = {"width": shot.width, "height": shot.height, "scale": shot.scale,
               "origin": {"x": shot.origin[0], "y": shot.origin[1]}, "bytes": len(shot.png), "format": "png", **got,
               "ms": round((time.perf_counter() - started) * 1000, 1)}
    return CallToolResult(content=[ImageContent(type="image", data=base64.b64encode(shot.png).decode(),
                                                mime_type="image/png"),
                                   TextContent(type="text", text=json.dumps(summary))],
                          structured_content=summary)


async def desktop_read_text(
    desk: Desktop,
    window: WindowArg = None, pid: PidArg = None,
    ref: Annotated[str | None, Field(description="Only this element.")] = None,
    region: Annotated[Region | None, Field(description="{x, y, width, height}")] = None,
    minConfidence: Annotated[float, Field(ge=0, le=100)] = 30,
    maxWords: Annotated[int, Field(ge=1, le=5000)] = 1000,
) -> dict[str, Any]:
    """Words by OCR on the screen, a window, an element or a region, with bounds and confidence."""
    started = time.perf_counter()
    got = await run(desk, lambda b: grab(b, window, pid, ref, region))
    shot = got.pop("shot")
    read = await asyncio.to_thread(ocr.read, shot, minConfidence, maxWords)
    return {**read, **got, "origin": {"x": shot.origin[0], "y": shot.origin[1]},
            "size": {"width": shot.width, "height": shot.height}, "method": "ocr",
            "ms": round((time.perf_counter() - started) * 1000, 1)}
