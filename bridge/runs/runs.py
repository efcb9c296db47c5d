"""The runs of this bridge: each run's state and event list (replayable by sequence number, streamed to
listeners), its trace, and the in-process registry the runs API, the CLI, the cockpit and agent_run share."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from bridge.runs import trace as traces
from bridge.runs.budgets import Limits, RunRequest
from bridge.runs.trace import Trace

log = logging.getLogger("bridge.runs")

#: Where a run ends; anything else ("planning", "executing", "verifying", "replanning", "paused") is on the way.
END_STATES = ("done", "failed", "blocked", "needs_clarification", "cancelled")
#: Events one run keeps in memory (its trace file has them all).
MAX_EVENTS = 5000
#: Finished runs kept in memory (older ones are read back from their traces).
KEEP_RUNS = 50
#: Screenshots one run keeps for the cockpit (the newest).
KEEP_IMAGES = 20


def new_id() -> str:
    return "r" + time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)


class Run:
    def __init__(self, request: RunRequest, limits: Limits, config_dir: Path | None) -> None:
        self.id = new_id()
        self.request, self.limits = request, limits
        self.state = "planning"
        self.created = time.time()
        self.ended: float | None = None
        self.summary = ""
        self.plan: dict[str, Any] | None = None
        self.counts = {"steps": 0, "batches": 0, "replans": 0, "model_calls": 0, "prompt_tokens": 0,
                       "completion_tokens": 0}
        self.events: list[dict[str, Any]] = []
        self.seq = 0
        self.trace_path = traces.runs_dir(config_dir) / f"{self.id}.jsonl" if config_dir is not None else None
        self.trace = Trace(self.trace_path)
        self._listeners: set[asyncio.Queue[dict[str, Any]]] = set()
        self.changed = asyncio.Event()
        #: Screenshots its steps took, for the cockpit: step -> (mime type, base64 data), the newest KEEP_IMAGES.
        self.images: dict[int, tuple[str, str]] = {}
        #: The open pause_for_human, if any (bridge.runs.takeover.Takeover).
        self.takeover: Any = None
        self.task: asyncio.Task[None] | None = None
        #: Who started it (bridge/server/principals.py): the agent (the MCP token), the cockpit or the terminal.
        self.by = "agent"

    @property
    def over(self) -> bool:
        return self.state in END_STATES

    def emit(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Record one event: in memory, in the trace, to every listener."""
        self.seq += 1
        event = {"seq": self.seq, "t": round(time.time(), 3), "run": self.id, "type": kind, **fields}
        self.events.append(event)
        if len(self.events) > MAX_EVENTS:
            del self.events[: len(self.events) - MAX_EVENTS]
        self.trace.write(event)
        for q in self._listeners:
            q.put_nowait(event)
        return event

    def keep_image(self, step: int, mime: str, data: str) -> None:
        self.images[step] = (mime, data)
        while len(self.images) > KEEP_IMAGES:
            del self.images[min(self.images)]

    def set_state(self, state: str, why: str = "") -> None:
        if state == self.state:
            return
        before, self.state = self.state, state
        self.emit("state_change", **{"from": before, "to": state}, **({"why": why} if why else {}))

    async def follow(self, after: int = 0) -> AsyncIterator[dict[str, Any]]:
        """Every event after sequence number `after`, then the new ones as they come, until run_done."""
        q: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._listeners.add(q)
        try:
            backlog = [e for e in self.events if e["seq"] > after]
            for e in backlog:
                yield e
                if e["type"] == "run_done":
                    return
            last = backlog[-1]["seq"] if backlog else after
            if self.over:  # a reconnect after the end: nothing more will come
                return
            while True:
                e = await q.get()
                if e["seq"] <= last:
                    continue
                yield e
                if e["type"] == "run_done":
                    return
        finally:
            self._listeners.discard(q)

    def row(self) -> dict[str, Any]:
        out = {"id": self.id, "task": self.request.task, "state": self.state, "created": self.created,
               "ended": self.ended, "summary": self.summary, "dryrun": self.request.dryrun,
               "trace": str(self.trace_path) if self.trace_path else None, "totals": dict(self.counts),
               "limits": self.limits.model_dump()}
        if self.takeover is not None and not self.takeover.answered:
            out["takeover"] = self.takeover.row()
        return out

    def detail(self) -> dict[str, Any]:
        return {**self.row(), "plan": self.plan, "events": len(self.events), "lastEvent": self.seq}


class Runs:
    """Every run of this bridge process, newest last; starts each on its own task (bridge.runs.loop)."""

    def __init__(self, config_dir: Path | None) -> None:
        self.config_dir = config_dir
        self.by_id: dict[str, Run] = {}

    def start(self, request: RunRequest, limits: Limits, driver: Any) -> Run:
        """Register a run and drive it on its own task (`driver(run)`: bridge.runs.service.Agent)."""
        run = Run(request, limits, self.config_dir)
        self.by_id[run.id] = run
        self._trim()
        run.task = asyncio.get_running_loop().create_task(driver(run), name=f"run {run.id}")
        return run

    def get(self, run_id: str) -> Run | None:
        return self.by_id.get(run_id)

    def rows(self, limit: int = 50) -> list[dict[str, Any]]:
        """Live and recent runs, newest first, then older ones from their traces."""
        rows = [r.row() for r in reversed(self.by_id.values())]
        seen = {r["id"] for r in rows}
        if self.config_dir is not None and len(rows) < limit:
            rows += [r for r in traces.history(self.config_dir, limit) if r["id"] not in seen]
        return rows[:limit]

    def cancel(self, run: Run) -> bool:
        if run.over or run.task is None:
            return False
        run.task.cancel()
        return True

    async def close(self) -> None:
        """Cancel every live run (the bridge is stopping) and wait for their traces to close (bounded)."""
        live = [r.task for r in self.by_id.values() if r.task is not None and not r.task.done()]
        for t in live:
            t.cancel()
        if live:
            await asyncio.wait(live, timeout=5)

    def _trim(self) -> None:
        done = [r for r in self.by_id.values() if r.over]
        for r in done[: max(0, len(done) - KEEP_RUNS)]:
            del self.by_id[r.id]
