"""One JSONL file per run in `<config_dir>/runs/<id>.jsonl`: every event of the run, one line each, flushed as it
happens (a run is slow next to a write), closed with `run_done`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any


def runs_dir(config_dir: Path) -> Path:
    return config_dir / "runs"


class Trace:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._file: IO[str] | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            self._file = os.fdopen(fd, "a", encoding="utf-8", buffering=1)

    def write(self, event: dict[str, Any]) -> None:
        if self._file is not None:
            self._file.write(json.dumps(event, ensure_ascii=False, default=str) + "\n")

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def read(path: Path) -> list[dict[str, Any]]:
    """Every event of a trace file (a torn last line is skipped)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def summary(path: Path) -> dict[str, Any] | None:
    """A finished or interrupted run's row from its trace: id, task, state, times, totals."""
    events = read(path)
    if not events or events[0].get("type") != "run_start":
        return None
    start, last = events[0], events[-1]
    row = {"id": start.get("run"), "task": start.get("task"), "created": start.get("t"), "trace": str(path),
           "state": "interrupted", "ended": None}
    if last.get("type") == "run_done":
        row.update(state=last.get("state"), ended=last.get("t"), summary=last.get("summary"),
                   totals=last.get("totals"))
    return row


def history(config_dir: Path, limit: int = 50) -> list[dict[str, Any]]:
    """The newest runs on disk, newest first."""
    folder = runs_dir(config_dir)
    if not folder.is_dir():
        return []
    # agent runs (r…) and skill runs (skill-…), newest first
    files = sorted(folder.glob("*.jsonl"), key=lambda f: f.stat().st_mtime, reverse=True)[:limit]
    return [row for f in files if (row := summary(f)) is not None]
