"""The desktop one bridge owns: its backend, started on the first desktop_* call, driven from one worker thread, and
stopped when the app's lifespan ends (bridge/server/app.py builds it, keeps it on the bridge's state and closes it).
Also where consent for input on an attached display is kept.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from bridge.desktop import auto_backend, load_backend
from bridge.desktop.control import Control
from bridge.desktop.errors import DesktopError

T = TypeVar("T")
log = logging.getLogger("bridge.desktop")


class Worker:
    """One long-lived thread that runs every backend call in order (toolkit connections are not thread-safe, and
    children spawned from it are told to die with it)."""

    def __init__(self, name: str = "dbg-desktop") -> None:
        self._q: queue.Queue[tuple[Callable[[], Any], Future[Any]] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while True:
            item = self._q.get()
            if item is None:
                return
            fn, fut = item
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                fut.set_result(fn())
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                fut.set_exception(exc)

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        fut: Future[T] = Future()
        self._q.put((fn, fut))
        return fut

    def call(self, fn: Callable[[], T], timeout: float | None = None) -> T:
        if threading.current_thread() is self._thread:
            return fn()
        return self.submit(fn).result(timeout)

    def stop(self) -> None:
        self._q.put(None)
        if threading.current_thread() is not self._thread:
            self._thread.join(10)


class Desktop:
    """Lazily started backend + worker thread + consent state, for one bridge (its BridgeState holds it)."""

    def __init__(self, settings: Any, on_control: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.settings = settings
        #: Who has the desktop (attached displays: the human's input takes it); `on_control` hears each change.
        self.control = Control(settings.desktop_handback_idle, on_control or (lambda state: None))
        self.backend_name = settings.desktop_backend
        if self.backend_name == "auto":
            self.backend_name = auto_backend()
        self.backend: Any = None
        self.worker = Worker()
        self.consent = False
        self.consent_until: float | None = None  # wall-clock end of a timed grant (None: until revoked)
        self.recording: Any = None  # the bridge.desktop.recording.recorder.Recording under way or last finished
        self.sessions = 0  # how many times a desktop was started (a restart makes every old ref stale)
        #: The bridge's input calls under way, and when (monotonic) the last one ended.
        self.acting = 0
        self.acted_at = 0.0
        self._lock = threading.Lock()

    @property
    def attached(self) -> bool:
        return self.settings.desktop_display != "private"

    @property
    def input_allowed(self) -> bool:
        """Input is allowed on a private desktop always; on an attached one while the human's grant lasts."""
        if not self.attached:
            return True
        if self.consent and self.consent_until is not None and time.time() >= self.consent_until:
            self.consent, self.consent_until = False, None
        return self.consent

    def require_input(self, what: str) -> None:
        """Refuse input on the human's own display until they grant consent, and while they have it in hand."""
        if self.attached:
            self.control.require_agent(what, f"{self.settings.base_url()}/#desktop")
        if not self.input_allowed:
            raise DesktopError(
                f"{what} is refused: the bridge is attached to the display {self.settings.desktop_display}, which a "
                "human is using, and input there needs their consent. Ask the human to grant it in the bridge "
                f"cockpit ({self.settings.base_url()}/#desktop, for a time they choose); until then read-only tools "
                "work (desktop_list_windows, desktop_screenshot, desktop_accessibility_tree), or run with "
                "desktop_display=private for a private desktop.",
                code="consent_required")

    def grant_consent(self, granted: bool = True, seconds: float | None = None) -> None:
        """For the cockpit (a human action), never for a tool: allow input for `seconds` (None: until revoked), or
        revoke it (which also ends a recording under way)."""
        self.consent = granted
        self.consent_until = time.time() + seconds if granted and seconds is not None else None
        rec = self.recording
        if not granted and self.attached and rec is not None and rec.active_now:
            threading.Thread(target=rec.end, args=("consent_ended",), daemon=True).start()

    def control_state(self) -> dict[str, Any]:
        """Who has the desktop (desktop_status, the cockpit)."""
        if not self.attached:
            return {"holder": "agent", "reason": "a private desktop is always the agent's"}
        self.control.current()
        return self.control.state()

    def consent_state(self) -> dict[str, Any]:
        allowed = self.input_allowed
        return {"granted": allowed, "until": round(self.consent_until, 3) if allowed and self.consent_until else None}

    def _ensure(self) -> Any:
        """The running backend, started (or restarted after a crash) on the worker thread."""
        b = self.backend
        if b is not None and getattr(b, "alive", lambda: True)():
            return b
        if b is not None:
            b.stop()
            self.backend = None
        cls = load_backend(self.backend_name)
        b = cls(self.settings)
        b.start()
        if self.attached:
            b.watch_hands(self.control.human_input)
        self.backend = b
        self.sessions += 1
        return b

    async def run(self, fn: Callable[[Any], T], timeout: float = 120, acting: bool = False) -> T:
        """Run fn(backend) on the worker thread, starting the desktop first if needed. `acting` marks the input it
        sends so a recording under way leaves it out."""
        def call() -> T:
            b = self._ensure()
            rec = self.recording
            # the bridge's own input is bracketed for a recording and for the watcher of the human's hands
            if not acting or (not self.attached and (rec is None or not rec.active_now)):
                return fn(b)
            b.mark_tool_input()
            try:
                return fn(b)
            finally:
                b.mark_tool_input()

        fut = self.worker.submit(call)
        if not acting:
            return await asyncio.wait_for(asyncio.wrap_future(fut), timeout)
        self.acting += 1  # the bridge's own trusted input: no page answer counts meanwhile (bridge/human/events.py)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(fut), timeout)
        finally:
            self.acting -= 1
            self.acted_at = time.monotonic()

    def submit_running(self, fn: Callable[[Any], T]) -> Future[T]:
        """fn(backend) queued on the worker, without starting anything: a desktop_stopped error if it is not
        running."""
        def call() -> T:
            b = self.backend
            if b is None or not getattr(b, "alive", lambda: True)():
                raise DesktopError("The desktop is not running.", code="desktop_stopped")
            return fn(b)

        return self.worker.submit(call)

    def call_running(self, fn: Callable[[Any], T], timeout: float = 30) -> T:
        return self.submit_running(fn).result(timeout)

    def run_sync(self, fn: Callable[[Any], T], timeout: float = 120) -> T:
        return self.worker.call(lambda: fn(self._ensure()), timeout)

    def close(self) -> None:
        rec = self.recording
        if rec is not None and rec.active_now:
            rec.end("desktop_stopped")
        with self._lock:
            if self.backend is not None:
                try:
                    self.worker.call(self.backend.stop, timeout=30)
                except Exception:  # shutting down anyway; say so in the log
                    log.warning("stopping the desktop failed", exc_info=True)
                self.backend = None
            self.worker.stop()
