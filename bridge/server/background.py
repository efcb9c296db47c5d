"""Fire-and-forget work (announcements, re-shown questions, cancel frames): each task held until it is done."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

#: What parts that start background work are handed: `Background.spawn`.
Spawn = Callable[[Coroutine[Any, Any, Any]], None]


class Background:
    """The bridge's background tasks; held here so the event loop does not collect them mid-flight."""

    def __init__(self) -> None:
        self.tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run `coro` in the background, keeping a reference until it is done."""
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
