"""A skill run's trace: one JSONL file per run in config_dir/runs/, the same event names as an agent run's
(run_start, tool_call, tool_result, run_done) so `runs show` and memory read both alike."""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path
from typing import Any

from bridge.runs.trace import read  # one reader for both kinds of trace

__all__ = ["Trace", "new_run_id", "read"]


def new_run_id(prefix: str = "skill") -> str:
    return f"{prefix}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


class Trace:
    def __init__(self, folder: Path, run_id: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.run_id = run_id
        self.path = folder / f"{run_id}.jsonl"
        self._f = self.path.open("a", encoding="utf-8")

    def event(self, type_: str, **data: Any) -> None:
        self._f.write(json.dumps({"type": type_, "run": self.run_id, "t": round(time.time(), 3), **data},
                                 ensure_ascii=False, default=str) + "\n")
        self._f.flush()

    def close(self) -> None:
        self._f.close()

