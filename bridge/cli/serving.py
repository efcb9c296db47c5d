"""Where this config dir's bridge serves: `serve` writes `<config_dir>/serving.json` ({url, pid}) once it listens
and removes it when it stops, so `dbg-bridge run` (and anything else) finds a bridge started on any port."""

from __future__ import annotations

import json
import os
from pathlib import Path

FILE = "serving.json"


def write(config_dir: Path, url: str) -> None:
    """Say this process serves `url` (the file is the user's only: 0600)."""
    config_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = config_dir / FILE
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump({"url": url, "pid": os.getpid()}, f)
    os.replace(tmp, path)


def clear(config_dir: Path) -> None:
    """Remove the file if it is still this process's (another bridge may have written it since)."""
    path = config_dir / FILE
    try:
        if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
            path.unlink()
    except (OSError, ValueError, AttributeError):
        return


def recorded(config_dir: Path) -> str | None:
    """The URL the last bridge started with this config dir wrote (it may have stopped since: check it answers)."""
    try:
        url = json.loads((config_dir / FILE).read_text(encoding="utf-8")).get("url")
    except (OSError, ValueError, AttributeError):
        return None
    return url if isinstance(url, str) and url.startswith("http") else None
