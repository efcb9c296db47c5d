"""The `dbg-bridge` commands (serve, mcp, doctor, token, run, runs, record, skill, memory, plugin) and how to print them again.
May import anything; nothing imports it but `bridge.__main__` and the entry point (the cockpit may read `command`).
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    """`bridge.cli:main`, the entry point, imported only when asked (so `bridge.cli.command` stays light)."""
    if name == "main":
        from bridge.cli.entry import main

        return main
    raise AttributeError(name)
