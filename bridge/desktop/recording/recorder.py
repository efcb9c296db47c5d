"""Recording the human's input on the desktop as replayable desktop_* tool calls.

The backend captures raw input in order (X11: bridge/desktop/x11/record.py) and hands each event to a Recording,
which turns events into steps on a thread of its own. It looks at the desktop through the desktop worker: the window
under a click, the element there, where keyboard focus is.

  click / right / double click → desktop_click … with a selector {role, name[, ordinal]} of the element under the
      pointer, scoped to its window by title; x,y when no element is there (each step's `method` says which)
  typed characters → one desktop_type_text per run (into the field that has focus; Backspace edits the run)
  chords with ctrl/alt/super → desktop_hotkey; Enter, Tab, arrows, F-keys… → desktop_press_key (repeats merged)
  wheel → desktop_scroll, press-move-release → desktop_drag (both by coordinates)
  the active window changing without a click → desktop_activate_window; a click or switch into a window that was
      not there before first waits for it (desktop_wait_for_window)

Input the bridge's own tools send is left out (the backend marks it in the stream). Text typed into a password field
is never kept: its step carries a placeholder and `redacted: true`.
"""

from __future__ import annotations

import json
import os
import queue
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from bridge.desktop.recording.probe import click_target, key_context
from bridge.desktop.recording.steps import CHORD_MODIFIERS, Steps

PROBE_TIMEOUT = 10.0
MAX_SECONDS = 600


class Recording:
    """One recording: events in (from the capture thread), steps out (built on its own thread)."""

    def __init__(self, submit: Callable[[Callable[[Any], Any]], Future[Any]], max_seconds: float,
                 allowed: Callable[[], bool] = lambda: True) -> None:
        self.submit = submit  # queues fn(backend) on the desktop worker
        self.allowed = allowed  # False once input consent ends (attached displays)
        self.max_seconds = max_seconds
        self.q: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.started = time.monotonic()
        self.started_at = time.time()
        self.deadline = self.started + max_seconds
        self.ended_by: str | None = None
        self.ended = 0.0
        self.done = threading.Event()
        self.skipped = 0  # events that could not be read
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, name="dbg-recording", daemon=True)
        self.builder = Steps(self._probe, self._pending)
        # what the capture thread tracks to decide which events get a probe as they arrive
        self._arriving = {"tool": False, "held": set(), "typing": False}

    # ---- lifecycle ------------------------------------------------------------------------------

    def begin(self, b: Any) -> None:
        """On the desktop worker: note the windows, start capturing, start building steps."""
        wins = b.windows()
        b.record_start(self._arrive)
        self.started = time.monotonic()
        self.deadline = self.started + self.max_seconds
        self.builder.begin(wins, self.started)
        self._thread.start()

    def call(self, fn: Callable[[Any], Any]) -> Any:
        return self.submit(fn).result(PROBE_TIMEOUT)

    def _arrive(self, ev: dict[str, Any]) -> None:
        """On the capture thread: queue the event, and for a press that needs a look at the desktop (a click, a key
        that starts typing or acts) queue that look on the desktop worker right now. The worker runs jobs in order,
        so the look comes after the input already sent and before any the bridge sends later: what it sees is what
        the input met, even when the recorder itself runs behind."""
        a = self._arriving
        if ev["kind"] == "tool":
            a["tool"] = ev["active"]
        elif ev["kind"] == "key" and ev["modifier"]:
            (a["held"].add if ev["down"] else a["held"].discard)(ev["modifier"])
        elif ev["down"] and not a["tool"]:
            if ev["kind"] == "button":
                a["typing"] = False
                if ev["button"] in (1, 3):
                    x, y = ev["x"], ev["y"]
                    ev["probe"] = self.submit(lambda b: click_target(b, x, y))
            else:
                plain = ev["chars"][0] is not None and not (a["held"] & set(CHORD_MODIFIERS))
                if not (plain and a["typing"]):
                    ev["probe"] = self.submit(key_context)
                a["typing"] = plain
        self.q.put(ev)

    def _probe(self, ev: dict[str, Any], fn: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
        """The look queued when the event arrived (or one now, if none was)."""
        fut = ev.get("probe")
        return fut.result(PROBE_TIMEOUT) if fut is not None else self.call(fn)

    def _pending(self) -> list[dict[str, Any] | None]:
        with self.q.mutex:
            return list(self.q.queue)

    @property
    def steps(self) -> list[dict[str, Any]]:
        return self.builder.steps

    @property
    def active_now(self) -> bool:
        return self.ended_by is None

    def end(self, reason: str) -> None:
        """Stop capturing (any thread but the worker; idempotent). Steps are complete once `done` is set."""
        with self._lock:
            if self.ended_by is not None:
                return
            self.ended_by = reason
            self.ended = time.monotonic()
        try:
            self.call(lambda b: b.record_stop())
        except Exception as exc:  # noqa: BLE001 - the desktop went away: nothing more will come anyway
            self.errors.append(f"stopping the capture: {exc}")
        self.q.put(None)

    def stop(self, timeout: float = 30) -> dict[str, Any]:
        self.end("stop")
        self.done.wait(timeout)
        return self.result()

    def status(self) -> dict[str, Any]:
        end = self.ended if self.ended_by else time.monotonic()
        return {"active": self.ended_by is None, "since": round(self.started_at, 3), "maxSeconds": self.max_seconds,
                "seconds": round(end - self.started, 1), "steps": len(self.steps), "endedBy": self.ended_by}

    def result(self) -> dict[str, Any]:
        out = {**self.status(), "steps": self.steps, "count": len(self.steps), "redacted": self.builder.redacted,
               "skipped": self.skipped + self.builder.skipped}
        del out["active"]
        if self.errors:
            out["errors"] = self.errors[:10]
        out["replay"] = ("Call each step's tool with its arguments, in order. Steps with redacted: true typed into a "
                         "password field: put the secret in value first.")
        return out

    def _loop(self) -> None:
        try:
            while True:
                try:
                    ev = self.q.get(timeout=0.2)
                except queue.Empty:
                    if time.monotonic() >= self.deadline:
                        self.end("time_limit")
                    elif not self.allowed():
                        self.end("consent_ended")
                    continue
                if ev is None:
                    break
                if ev["t"] > self.deadline:
                    self.end("time_limit")
                    continue
                if not self.allowed():
                    self.end("consent_ended")
                    continue
                try:
                    self.builder.handle(ev)
                except Exception as exc:  # noqa: BLE001 - one event that could not be read; keep recording
                    self.skipped += 1
                    self.errors.append(f"{type(exc).__name__}: {exc}")
                    if getattr(exc, "code", None) == "desktop_stopped":
                        self.end("desktop_stopped")
        finally:
            self.builder.flush_run()
            self.done.set()


def save(config_dir: Path, result: dict[str, Any]) -> Path:
    """Write a finished recording as JSON into <config_dir>/recordings (owner-only), return its path."""
    folder = Path(config_dir) / "recordings"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    name = time.strftime("recording-%Y%m%d-%H%M%S-", time.localtime()) + secrets.token_hex(2) + ".json"
    path = folder / name
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump({k: v for k, v in result.items() if k != "file"}, f, ensure_ascii=False, indent=2)
    return path
