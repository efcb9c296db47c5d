"""desktop_* tools that record the human's input as replayable steps."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any

from pydantic import Field

from bridge.desktop.recording import recorder as recording
from bridge.desktop.errors import DesktopError
from bridge.desktop.service import Desktop
from bridge.tools.desktop.common import run


async def desktop_start_recording(
    desk: Desktop,
    maxSeconds: Annotated[float, Field(gt=0, le=recording.MAX_SECONDS)] = 120,
) -> dict[str, Any]:
    """Record the human's desktop input (time-limited, in memory; no password text)."""
    desk.require_input("Recording the human's input")
    if desk.recording is not None and desk.recording.active_now:
        raise DesktopError("A recording is already running: stop it with desktop_stop_recording first.",
                           code="recording_active")
    rec = desk.recording = recording.Recording(desk.submit_running, maxSeconds, allowed=lambda: desk.input_allowed)
    try:  # the slot is taken before the first await: a second start meanwhile is refused
        await run(desk, rec.begin)
    except BaseException:
        if desk.recording is rec:
            desk.recording = None
        raise
    return {"recording": True, "maxSeconds": maxSeconds, "since": round(rec.started_at, 3),
            "hint": "Let the human act on the desktop, then call desktop_stop_recording for the steps."}


async def desktop_stop_recording(
    desk: Desktop,
    save: Annotated[bool, Field(description="Also write the steps to the config dir.")] = False,
) -> dict[str, Any]:
    """Stop recording; returns replayable steps {tool, arguments, method, at}."""
    rec = desk.recording
    if rec is None:
        raise DesktopError("Nothing was recorded: call desktop_start_recording first.", code="not_recording")
    out = await asyncio.to_thread(rec.stop)
    if desk.recording is rec:
        desk.recording = None
    if save:
        out["file"] = str(await asyncio.to_thread(recording.save, desk.settings.config_dir, out))
    return out
