"""page_wait {update: N}: the dev server's next hot update (or a reload) after the count N, waited for in the bridge
(a reload ends any wait inside the page), from what the tab's client reports (protocol.DevMsg, RegisterRequest)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bridge import errors
from bridge.pages import commands as m
from bridge.pages.registry import Instance, dev_error_text
from bridge.tools.page.handle import Page


def cursor(inst: Instance) -> tuple[int, int]:
    """(generation, updates) as the tab stands now."""
    return inst.generation, inst.dev.updates if inst.dev is not None else 0


async def wait_update(page: Page, params: m.WaitParams) -> dict[str, Any]:
    """Met when the tab's update count passes `update` (an applied hot update or a reload; a failed update raises
    [update_failed] with the dev server's error at file:line)."""
    started = time.monotonic()
    inst = page.target.inst
    after_gen = inst.generation
    after_updates = params.update or 0
    deadline = started + params.timeout
    while True:
        inst = page.target.inst
        generation, updates = cursor(inst)
        if updates > after_updates and inst.dev is not None and inst.dev.error is not None:
            raise errors.BridgeError(
                f"The dev server's update failed: {dev_error_text(inst.dev)}. The page still runs the code before "
                f"it. Fix the file, then page_wait {{update: {updates}}} for the next update.", code="update_failed")
        if inst.live and (updates > after_updates or generation > after_gen):
            dev = inst.dev
            return {"met": True, "ms": ms(started), "value": {
                "updates": updates, "reloaded": bool(dev.reloaded) if dev is not None else True,
                **({"updatedAt": dev.updatedAt, "server": dev.server} if dev is not None else {})}}
        left = deadline - time.monotonic()
        if left <= 0:
            raise errors.BridgeError(timeout_text(inst, params.timeout, after_updates), code="wait_timeout")
        changed = inst.changed
        try:
            await asyncio.wait_for(changed.wait(), min(left, 1.0))
        except TimeoutError:
            pass


def timeout_text(inst: Instance, timeout: float, after_updates: int) -> str:
    """Why no update came, and what to do."""
    if inst.dev is None:
        return (f"No hot update came within {timeout:g} s, and this page has no dev server client the bridge can "
                "see (Vite's /@vite/client, or webpack-dev-server with hot: true and dbg-bridge-webpack-plugin). "
                "Reload the page after a change instead (page_navigate reload).")
    return (f"No hot update came within {timeout:g} s (the page is at updates {inst.dev.updates}; waited for more "
            f"than {after_updates}). Check that the file you "
            "edited is one the page imports and that the dev server is running, then wait again.")


def ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
