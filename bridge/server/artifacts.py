"""Artifacts: answers too big for a tool result (a whole snapshot tree), kept in <config dir>/artifacts/ (owner-only)
and served as the MCP resources dbg://artifacts/<name>, so a client on another machine can read them too."""

from __future__ import annotations

import re
from pathlib import Path

from mcp.types import ResourceLink

URI_PREFIX = "dbg://artifacts/"
NAME = re.compile(r"^[A-Za-z0-9._@-]{1,200}$")


def folder(config_dir: Path) -> Path:
    return config_dir / "artifacts"


def write(config_dir: Path, name: str, text: str) -> Path:
    """Write an artifact (readable by the user only); returns its path."""
    where = folder(config_dir)
    where.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = where / re.sub(r"[^A-Za-z0-9._@-]", "_", name)[:200]
    path.write_text(text)
    path.chmod(0o600)
    return path


def link(path: Path, description: str) -> ResourceLink:
    """A resource_link to an artifact, readable with resources/read."""
    return ResourceLink(type="resource_link", uri=URI_PREFIX + path.name, name=path.name, description=description,
                        mime_type="text/plain", size=path.stat().st_size)


def read(config_dir: Path, name: str) -> str:
    """An artifact's text by name; a ValueError (shown to the client) for a name that is not one."""
    if not NAME.match(name) or name.startswith("."):
        raise ValueError(f"[not_found] '{name[:80]}' is not an artifact name. Use the uri a tool answer linked.")
    path = folder(config_dir) / name
    if not path.is_file():
        raise ValueError(f"[not_found] No artifact '{name}' (artifacts live as long as the config dir keeps them). "
                         "Call the tool again to make a new one.")
    return path.read_text()
