"""Who is asking: the agent (the MCP token, which every MCP client holds) or the human (the cockpit's session, the
terminal's human key). What only the human decides — consent, a run's `allow` beyond what the human granted,
takeover answers, skills and memory edits, recordings — needs the human's credential; the agent's token never
stands in for it.

The terminal proves it is the human with the human key: `<config_dir>/human.key`, created 0600 by the bridge next to
the MCP token, read by `dbg-bridge run`/`record`/`skill`/`memory` and sent as `X-Dbg-Human`. It is never shown to an
MCP client, never printed, and never in a client config (the token is)."""

from __future__ import annotations

import fnmatch
import hmac
from pathlib import Path

from starlette.datastructures import Headers

from bridge.server.http import HTTPError
from bridge.server.security import secret_file

HEADER = "x-dbg-human"
#: Who gave an answer, a decision or a fact: the human at the cockpit, the human at their terminal, the page
#: (its own scripts could have), or the agent (the MCP token).
COCKPIT, TERMINAL, PAGE, AGENT = "cockpit", "terminal", "page", "agent"
HUMAN_VIA = (COCKPIT, TERMINAL)
GLOB = set("*?[")


def key_file(config_dir: Path) -> Path:
    return config_dir / "human.key"


def load_or_create_key(config_dir: Path) -> str:
    """The human key from `<config_dir>/human.key`, created (0600, in a 0700 folder) with a random key if missing."""
    return secret_file(key_file(config_dir))


def read_key(config_dir: Path) -> str | None:
    """The human key for a terminal command (None when this user has none: not the one who started the bridge)."""
    try:
        key = key_file(config_dir).read_text().strip()
    except OSError:
        return None
    return key or None


def terminal_headers(config_dir: Path) -> dict[str, str]:
    """What a terminal command sends to prove it is the human (nothing when it cannot read the key)."""
    key = read_key(config_dir)
    return {HEADER: key} if key else {}


def is_human(headers: Headers, key: str | None) -> bool:
    """The request carries the human key (the terminal)."""
    sent = headers.get(HEADER, "")
    return bool(key) and bool(sent) and hmac.compare_digest(sent.encode(), str(key).encode())


def who(headers: Headers, key: str | None) -> str:
    """TERMINAL when the request carries the human key, else AGENT (the token alone)."""
    return TERMINAL if is_human(headers, key) else AGENT


def human_only(what: str) -> HTTPError:
    """The 403 an agent gets for something only the human decides."""
    return HTTPError(403, "human_only", f"{what} is the human's to decide, and the MCP token is the agent's, not "
                                        "the human's. Only the human can: in the bridge cockpit, or at the terminal "
                                        "that started the bridge (`dbg-bridge run --allow …`), or in the bridge's "
                                        "config and flags. Ask them (user_ask), or go on without it.")


def covered(entry: str, granted: list[str] | tuple[str, ...]) -> bool:
    """`entry` (a consent class, a tool name or a glob) asks for nothing beyond `granted`: it is one of them, or a
    plain name a granted glob matches (a glob of the agent's only when the human granted that very glob)."""
    if entry in granted:
        return True
    return not (set(entry) & GLOB) and any(fnmatch.fnmatchcase(entry, g) for g in granted if set(g) & GLOB)


def beyond(asked: list[str], granted: list[str] | tuple[str, ...]) -> list[str]:
    """The entries of `asked` the human did not grant."""
    return [a for a in asked if not covered(a, granted)]
