"""Where the state a team bridge shares lives: this bridge alone (`local`), or Redis with the other replicas
(`redis`, `--cluster`). Picked once at start from the settings, by name from a table of import strings, like the
desktop backends: the redis client is imported only when it is the one picked.

The rest of the bridge talks to one `SharedState` and never asks which it is: the page channel registers pages
through it, the dispatcher finds other replicas' pages through it, the cockpit lists their questions through it.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from bridge.state import BridgeState
    from bridge.human.inbox import Item
    from bridge.pages.protocol import RegisterRequest, ResultMsg
    from bridge.human.questions import Question
    from bridge.pages.registry import Instance
    from bridge.settings import Settings

#: Backend name -> "module:class"; the module is imported only for the one picked.
BACKENDS: dict[str, str] = {
    "local": "bridge.shared.local:LocalState",
    "redis": "bridge.cluster:Cluster",
}
#: What a backend needs installed beyond the bridge's own dependencies (module -> the extra that brings it).
NEEDS: dict[str, tuple[str, str]] = {"redis": ("redis", "cluster")}


class SharedState(Protocol):
    """Pages, questions and the inbox as every replica sees them (one replica: as this bridge sees them)."""

    #: Why page_list shows only this replica's pages right now (the shared store is unreachable), else None.
    note: str | None

    #: (consent class, verified origin) pairs the human allowed ("Allow on this origin"), on every replica.
    approvals: set[tuple[str, str]]

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    async def register(self, req: RegisterRequest, origin: str) -> tuple[Instance, bool]:
        """Give a page its id (its own back, with its secret; the port's; else a fresh one): (instance, renamed).
        Raises OriginMismatch, TooManyPages, or a BridgeError when the shared store cannot decide now."""

    def remote(self, instance_id: str) -> Instance | None:
        """A page another replica holds (None: not one we know of)."""

    def remote_tabs(self) -> list[Instance]:
        """Other replicas' live tabs."""

    def valid_cursor(self, cursor: str) -> bool:
        """Whether `cursor` is one page_list gives (each backend pages its own way)."""

    async def page_list(self, cursor: str | None, limit: int) -> tuple[list[dict[str, Any]], str | None]:
        """`limit` tabs' page_list rows (with their frames) after `cursor`, and the cursor of the next ones."""

    def remote_rows(self) -> list[dict[str, Any]]:
        """Other replicas' pages as the cockpit lists them (what is known here now, no round trip)."""

    async def replica_urls(self) -> list[str] | None:
        """Every live replica's page-channel URL, this one's first (None: a single bridge)."""

    def relay_result(self, instance_id: str, msg: ResultMsg) -> bool:
        """A result this replica got for a call another replica waits on: sent on (False: nobody waits)."""

    async def authenticate(self, instance_id: str, secret: str) -> Instance | None:
        """Another replica's page, if `secret` is its own (its up messages reached this replica)."""

    async def forward_up(self, inst: Instance, data: dict[str, Any]) -> None:
        """Hand an up message of another replica's page to that replica."""

    def remote_questions(self) -> list[Question]:
        """Open questions other replicas asked."""

    def remote_question(self, question_id: str) -> Question | None: ...

    def forward_answer(self, question_id: str, answer: Any, via: str, instance_id: str | None) -> bool:
        """An answer to another replica's question: sent to it (False: not one we know of)."""

    def page_changed(self, inst: Instance, gone: bool) -> None:
        """The registry changed one of this bridge's pages (attach, detach, frames…) or dropped it (gone)."""

    def question_changed(self, q: Question, opened: bool) -> None:
        """A question of this bridge opened, or closed (answered, forgotten)."""

    def inbox_take(self, item: Item) -> bool:
        """A new inbox item: True when the shared store takes it (and gives it its id on the way back)."""

    def inbox_mark(self, ids: list[int], status: str) -> None: ...

    async def message_id(self, item: Item) -> int | None:
        """The id an inbox item the human typed got (a team bridge gives it one cluster-wide; None: not in time)."""


def backend_name(settings: Settings) -> str:
    return "redis" if settings.cluster else "local"


def missing(settings: Settings) -> str | None:
    """What the picked backend needs and this install lacks, said for the human; None when it loads."""
    need = NEEDS.get(backend_name(settings))
    if need and importlib.util.find_spec(need[0]) is None:
        return f"--cluster needs the Redis client: pip install 'dbg-bridge[{need[1]}]'."
    return None


def build(state: BridgeState) -> SharedState:
    """The backend these settings pick, built for this bridge (before its dispatcher, which finds remote pages
    through it)."""
    module, _, name = BACKENDS[backend_name(state.settings)].partition(":")
    return getattr(importlib.import_module(module), name)(state)
