"""The cyclic garbage collector on a long-running bridge: what survives is frozen, so a collection walks only what
is new.

With thousands of pages connected, the heap holds hundreds of thousands of long-lived objects (each WebSocket's
protocol, task and buffers; the SDK's and pydantic's schemas from startup), and every full collection walked all of
them in the middle of some tool call: at 2,000 pages that made page_exec's p50 2.1x and its p99 13x those with one
page (bench/many_pages.py); with collection off, 1.3x and 1.65x. So everything alive after startup, and then after
each sweep, is moved to the permanent generation (gc.freeze). Cyclic garbage among frozen objects (a page that left)
is only found by a full collection of everything, which runs every FULL_EVERY seconds instead.
"""

from __future__ import annotations

import gc
import time

#: Seconds between full collections of everything (frozen objects included).
FULL_EVERY = 300.0


class Heap:
    def __init__(self, full_every: float = FULL_EVERY) -> None:
        self.full_every = full_every
        self.last_full = time.monotonic()

    def settle(self) -> None:
        """Freeze what is alive now; every `full_every` seconds, collect everything first."""
        if time.monotonic() - self.last_full >= self.full_every:
            gc.unfreeze()
            gc.collect()
            self.last_full = time.monotonic()
        gc.freeze()
