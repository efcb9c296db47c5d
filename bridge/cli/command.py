"""How to run this dbg-bridge again from a shell: what the banner, the cockpit and the docs print for `token`, `mcp`
and `doctor`, so every printed command works as printed (the install may not be on PATH)."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any


def command(argv0: str | None = None) -> str:
    """`dbg-bridge` when that name on PATH is this very install; else the absolute path of the script that is
    running (e.g. /home/me/dbg-bridge/.venv/bin/dbg-bridge); else `python -m bridge` with this interpreter."""
    script = Path(argv0 if argv0 is not None else sys.argv[0])
    on_path = shutil.which("dbg-bridge")
    if script.name == "dbg-bridge" and script.exists():
        if on_path and os.path.samefile(on_path, script):
            return "dbg-bridge"
        return shlex.quote(str(script.resolve()))
    if on_path and Path(on_path).parent == Path(sys.executable).parent:
        return "dbg-bridge"
    beside = Path(sys.executable).parent / "dbg-bridge"
    if beside.exists():
        return shlex.quote(str(beside))
    return shlex.join([sys.executable, "-m", "bridge"])


def invocation(settings: Any, sub: str) -> str:
    """`<command> <sub>` with the flags this bridge needs to be found again (a port or config dir other than the
    defaults), so the line works pasted as is."""
    from bridge.settings import Settings

    defaults = Settings.model_fields
    parts = [command(), sub]
    if sub in ("mcp", "doctor"):
        if settings.host != defaults["host"].default:
            parts += ["--host", shlex.quote(settings.host)]
        if settings.port != defaults["port"].default:
            parts += ["--port", str(settings.port)]
    if Path(settings.config_dir) != defaults["config_dir"].default_factory():  # type: ignore[misc]
        parts += ["--config-dir", shlex.quote(str(settings.config_dir))]
    return " ".join(parts)
