"""The shared state of a bridge that shares nothing: its own registry gives the page ids, with the reserved ids kept
in pages.json across restarts (bridge/shared/seam.py picks it without `--cluster`). It has no other replica, so
no replicas, shared questions or shared inbox."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from bridge.pages.registry import Registry, parse_list_cursor
from bridge.shared.seam import Parts, Shared

if TYPE_CHECKING:
    from bridge.pages.protocol import RegisterRequest
    from bridge.pages.registry import Instance


class LocalPages:
    """One replica: every page is this bridge's."""

    note: str | None = None

    def __init__(self, registry: Registry, pages_file: Path) -> None:
        self.registry = registry
        self.pages_file = pages_file

    async def start(self) -> None:
        self.registry.persist_to(self.pages_file)

    async def register(self, req: RegisterRequest, origin: str) -> tuple[Instance, bool]:
        return self.registry.register(req, origin)

    def valid_cursor(self, cursor: str) -> bool:
        return parse_list_cursor(cursor) is not None

    async def page_list(self, cursor: str | None, limit: int) -> tuple[list[dict[str, Any]], str | None]:
        tabs, more = self.registry.after(cursor, limit)
        return self.registry.page_rows(tabs), more


def build(parts: Parts) -> Shared:
    pages = LocalPages(parts.registry, parts.settings.config_dir / "pages.json")
    return Shared(pages=pages, on_start=pages.start)
