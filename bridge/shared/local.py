"""The shared state of a bridge that shares nothing: its own registry, with the reserved ids kept in pages.json
across restarts (bridge/shared/seam.py picks it without `--cluster`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bridge.pages.registry import parse_list_cursor

if TYPE_CHECKING:
    from bridge.state import BridgeState
    from bridge.human.inbox import Item
    from bridge.pages.protocol import RegisterRequest, ResultMsg
    from bridge.human.questions import Question
    from bridge.pages.registry import Instance


class LocalState:
    """One replica: every page is this bridge's, nothing is elsewhere."""

    note: str | None = None

    def __init__(self, state: BridgeState) -> None:
        self.registry = state.registry
        self.pages_file = state.settings.config_dir / "pages.json"
        self.approvals: set[tuple[str, str]] = set()

    async def start(self) -> None:
        self.registry.persist_to(self.pages_file)

    async def stop(self) -> None:
        pass

    async def register(self, req: RegisterRequest, origin: str) -> tuple[Instance, bool]:
        return self.registry.register(req, origin)

    def remote(self, instance_id: str) -> Instance | None:
        return None

    def remote_tabs(self) -> list[Instance]:
        return []

    def valid_cursor(self, cursor: str) -> bool:
        return parse_list_cursor(cursor) is not None

    async def page_list(self, cursor: str | None, limit: int) -> tuple[list[dict[str, Any]], str | None]:
        tabs, more = self.registry.after(cursor, limit)
        return self.registry.page_rows(tabs), more

    def remote_rows(self) -> list[dict[str, Any]]:
        return []

    async def replica_urls(self) -> list[str] | None:
        return None

    def relay_result(self, instance_id: str, msg: ResultMsg) -> bool:
        return False

    async def authenticate(self, instance_id: str, secret: str) -> Instance | None:
        return None

    async def forward_up(self, inst: Instance, data: dict[str, Any]) -> None:
        raise AssertionError("a single bridge has no other replica to forward to")

    def remote_questions(self) -> list[Question]:
        return []

    def remote_question(self, question_id: str) -> Question | None:
        return None

    def forward_answer(self, question_id: str, answer: Any, via: str, instance_id: str | None) -> bool:
        return False

    def page_changed(self, inst: Instance, gone: bool) -> None:
        pass

    def question_changed(self, q: Question, opened: bool) -> None:
        pass

    def inbox_take(self, item: Item) -> bool:
        return False

    def inbox_mark(self, ids: list[int], status: str) -> None:
        pass

    async def message_id(self, item: Item) -> int | None:
        return item.id
