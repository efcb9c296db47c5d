"""The runs API driven with plain HTTP (httpx) for the agent e2e tests: start a run, follow its SSE events."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx

from bridge.server.principals import terminal_headers


class RunsApi:
    """The agent's client (the token alone), or with `human` (the bridge's config dir) the human's terminal: the
    token and the human key, as `dbg-bridge run` sends them."""

    def __init__(self, base: str, token: str | None, human: Path | None = None) -> None:
        self.base = base
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}
        if human is not None:
            self.headers.update(terminal_headers(human))
        self.http = httpx.Client(base_url=base, headers=self.headers, timeout=30)

    def start(self, task: str, **body: Any) -> str:
        r = self.http.post("/v1/runs", json={"task": task, **body})
        assert r.status_code == 201, r.text
        return r.json()["id"]

    def get(self, run_id: str) -> dict[str, Any]:
        r = self.http.get(f"/v1/runs/{run_id}")
        assert r.status_code == 200, r.text
        return r.json()

    def post(self, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        return self.http.post(path, json=body or {})

    def events(self, run_id: str, until: str = "run_done", after: int = 0, timeout: float = 60) -> list[dict[str, Any]]:
        """Events from the SSE stream (bounded) until one of type `until` (included)."""
        out: list[dict[str, Any]] = []
        headers = {"Last-Event-ID": str(after)} if after else {}
        deadline = time.monotonic() + timeout
        with self.http.stream("GET", f"/v1/runs/{run_id}/events", headers=headers,
                              timeout=httpx.Timeout(timeout, connect=5)) as r:
            assert r.status_code == 200, r.read()
            for line in r.iter_lines():
                if line.startswith("data:"):
                    event = json.loads(line[5:])
                    out.append(event)
                    if event["type"] == until:
                        return out
                assert time.monotonic() < deadline, f"no {until} within {timeout} s: {out[-5:]}"
        return out

    def run(self, task: str, timeout: float = 60, **body: Any) -> tuple[str, list[dict[str, Any]]]:
        """Start a run and read its events to the end."""
        run_id = self.start(task, **body)
        return run_id, self.events(run_id, timeout=timeout)

    def close(self) -> None:
        self.http.close()


def of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


def done(events: list[dict[str, Any]]) -> dict[str, Any]:
    return of(events, "run_done")[-1]
