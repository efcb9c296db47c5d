"""A sliding-window rate limit per key (an origin): at most `limit` events in `window` seconds."""

from __future__ import annotations

import time
from collections import deque


class RateLimit:
    def __init__(self, limit: int, window: float = 60.0) -> None:
        self.limit, self.window = limit, window
        self.recent: dict[str, deque[float]] = {}

    def admit(self, key: str) -> bool:
        """Count one event for `key`; False (and not counted) when the key is over its limit."""
        now = time.monotonic()
        events = self.recent.setdefault(key, deque())
        while events and now - events[0] > self.window:
            events.popleft()
        if len(events) >= self.limit:
            return False
        events.append(now)
        if len(self.recent) > 1000:  # keys that went quiet
            for k in [k for k, v in self.recent.items() if not v or now - v[-1] > self.window]:
                del self.recent[k]
        return True
