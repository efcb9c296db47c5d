"""Who has an attached desktop: the agent or the human. The human's own input (seen by the backend's watcher, e.g.
bridge/desktop/x11/hands.py) takes it at once; it comes back when the human hands it back in the cockpit's Desktop
tab, or after `desktop_handback_idle` seconds without the human's input (0: only the cockpit). A private desktop is
always the agent's: nothing watches it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from bridge.desktop.errors import DesktopError


class Control:
    """The holder and the moments it changed; `notify(state)` runs on each change (the inbox item)."""

    def __init__(self, idle: float, notify: Callable[[dict[str, Any]], None]) -> None:
        self.idle = idle
        self.notify = notify
        self.holder = "agent"
        self.since = time.time()
        self.reason = "start"
        self.last_human: float | None = None  # monotonic time of the human's last input
        self._lock = threading.Lock()

    def human_input(self, kind: str) -> None:
        """The human moved the pointer, pressed a button or a key (called from the watcher's thread)."""
        with self._lock:
            self.last_human = time.monotonic()
            if self.holder == "human":
                return
            self._change("human", f"the human's {kind} input")
        self.notify(self.state())

    def hand_back(self, why: str = "handed back in the cockpit") -> bool:
        """Give the desktop to the agent; False if it had it already."""
        with self._lock:
            if self.holder == "agent":
                return False
            self._change("agent", why)
        self.notify(self.state())
        return True

    def _change(self, holder: str, reason: str) -> None:
        self.holder, self.reason, self.since = holder, reason, time.time()

    def current(self) -> str:
        """The holder now (an idle human hands it back here, when the idle period is on)."""
        if self.holder == "human" and self.idle > 0 and self.last_human is not None \
                and time.monotonic() - self.last_human >= self.idle:
            self.hand_back(f"no input from the human for {self.idle:g} s")
        return self.holder

    def require_agent(self, what: str, cockpit: str) -> None:
        if self.current() == "human":
            back = (f", or after {self.idle:g} s without their input" if self.idle > 0 else "")
            raise DesktopError(
                f"{what} is refused: the human took the desktop ({self.reason}, at "
                f"{time.strftime('%H:%M:%S', time.localtime(self.since))}) and has it now. It comes back when they "
                f"hand it back in the cockpit ({cockpit}){back}; desktop_status says who has it. Read-only tools "
                "keep working; ask the human with user_ask if you need the desktop now.", code="user_control")

    def state(self) -> dict[str, Any]:
        out: dict[str, Any] = {"holder": self.holder, "since": round(self.since, 3), "reason": self.reason,
                               "handbackIdle": self.idle}
        if self.last_human is not None:
            out["humanIdle"] = round(time.monotonic() - self.last_human, 1)
        return out
