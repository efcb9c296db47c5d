"""Progress notifications for long waits: the tool call's MCP context is kept in a contextvar (set by the bound
handler in bridge/tools/base.py), so the dispatcher and the human loop report without a context parameter.

Every wait that lasts longer than a second reports once a second what it awaits, the seconds elapsed and its
limit. The SDK drops the notifications when the client sent no progress token (and in JSON-response mode)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from contextvars import ContextVar
from typing import Any

log = logging.getLogger("bridge.server.progress")

#: The MCP request context of the tool call being handled (None outside a tool call).
REQUEST: ContextVar[Any] = ContextVar("dbg_request", default=None)
#: A wait in this call is already reporting (nested waits do not report twice).
_REPORTING: ContextVar[bool] = ContextVar("dbg_reporting", default=False)

PERIOD = 1.0


@contextlib.asynccontextmanager
async def reporting(what: str, limit: float | None) -> AsyncIterator[None]:
    """Report progress on `what` (e.g. "page 5173/host to answer 'wait'") every second while the block runs."""
    ctx = REQUEST.get()
    if ctx is None or _REPORTING.get():
        yield
        return
    started = time.monotonic()

    async def tick() -> None:
        while True:
            elapsed = round(time.monotonic() - started, 1)
            text = f"Waiting for {what}: {elapsed:.0f} s" + (f" of at most {limit:g} s" if limit else "")
            try:
                await ctx.report_progress(elapsed, limit, text)
            except Exception as exc:  # the client went away: the wait itself goes on
                log.debug("progress notification failed: %s", exc)
                return
            await asyncio.sleep(PERIOD)

    # Most waits end well within the first second: the reporting task is only made once one lasts that long (a
    # timer costs far less than a task per call).
    tasks: list[asyncio.Task[None]] = []
    loop = asyncio.get_running_loop()
    token = _REPORTING.set(True)
    timer = loop.call_later(PERIOD, lambda: tasks.append(loop.create_task(tick())))
    try:
        yield
    finally:
        timer.cancel()
        for task in tasks:
            task.cancel()
        _REPORTING.reset(token)
