"""<config dir>/running.json: the bridge that serves from this config dir now (its URL and pid), so `dbg-bridge
doctor` (and anything else on this machine) finds a bridge started with --port N or --port 0 without being told."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from bridge.settings import Settings

NAME = "running.json"


def path(settings: Settings) -> Path:
    return settings.config_dir / NAME


def write(settings: Settings) -> None:
    """Say this process serves at settings.base_url() (best effort: a read-only config dir only loses the hint)."""
    with contextlib.suppress(OSError):
        settings.config_dir.mkdir(parents=True, exist_ok=True)
        path(settings).write_text(json.dumps({"url": settings.base_url(), "pid": os.getpid()}) + "\n")


def clear(settings: Settings) -> None:
    """Forget it, if the file is still this process's."""
    with contextlib.suppress(OSError, ValueError):
        if json.loads(path(settings).read_text()).get("pid") == os.getpid():
            path(settings).unlink()


def url(settings: Settings) -> str | None:
    """The URL the last bridge started from this config dir said it serves at (None: none said, or it left)."""
    try:
        data = json.loads(path(settings).read_text())
    except (OSError, ValueError):
        return None
    return data.get("url") if isinstance(data, dict) and isinstance(data.get("url"), str) else None
