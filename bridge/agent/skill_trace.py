"""A skill run's trace: one JSONL file per run in config_dir/runs/, the same event names as an agent run's
(run_start, tool_call, tool_result, run_done) so `runs show` and memory read both alike."""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path
from typing import Any


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


def read(path: Path) -> list[dict[str, Any]]:
    """A trace's events (a line cut short by a crash is skipped)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out
