"""Where the state a team bridge shares lives, chosen by URL as Celery's `by_url` does: no `--cluster` is this
bridge alone (`local`), `redis://…` (or `rediss://…`, `unix://…`) Redis with the other replicas. Picked once at start from the
table of import strings below, like the desktop backends: the redis client is imported only when it is the one
picked.

A backend gives a few small parts (`Shared`), each for one concern, and only those it has: the page ids
(`PageIds`, every backend), the other replicas' pages (`Replicas`), their questions (`SharedQuestions`), the inbox
(`SharedInbox`), the consent approvals, and the skills-and-memory store (`open_store`). A lone bridge has no
replicas, so it gives none of those parts (None), rather than methods that do nothing. A backend is built from
`Parts`, the bridge's own objects and callbacks into the rest, never the whole `BridgeState`.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from bridge.human.inbox import Inbox, Item
    from bridge.human.questions import Question, Questions
    from bridge.pages.pending import Pending
    from bridge.pages.protocol import EventMsg, RegisterRequest, ResultMsg, UpMessage
    from bridge.pages.registry import Instance, Registry
    from bridge.settings import Settings


@dataclass(frozen=True)
class Backend:
    """One row of the table: what builds the shared parts, and the skills-and-memory store (both "module:name",
    each called with what its docstring says), and what it needs installed beyond the bridge's own dependencies
    (module, the extra that brings it)."""

    parts: str
    store: str
    needs: tuple[str, str] | None = None


#: URL scheme (`local`: no --cluster) -> its backend; the modules are imported only for the one picked.
BACKENDS: dict[str, Backend] = {
    "local": Backend("bridge.shared.local:build", "bridge.skills.store:disk_store"),
    "redis": Backend("bridge.cluster:build", "bridge.skills.store:redis_store", ("redis", "cluster")),
    "rediss": Backend("bridge.cluster:build", "bridge.skills.store:redis_store", ("redis", "cluster")),
    "unix": Backend("bridge.cluster:build", "bridge.skills.store:redis_store", ("redis", "cluster")),
}


class PageIds(Protocol):
    """Giving pages their ids, and listing them (every backend)."""

    #: Why page_list shows only this replica's pages right now (the shared store is unreachable), else None.
    note: str | None

    async def register(self, req: RegisterRequest, origin: str) -> tuple[Instance, bool]:
        """Give a page its id (its own back, with its secret; the port's; else a fresh one): (instance, renamed).
        Raises OriginMismatch, TooManyPages, or a BridgeError when the shared store cannot decide now."""

    def valid_cursor(self, cursor: str) -> bool:
        """Whether `cursor` is one page_list gives (each backend pages its own way)."""

    async def page_list(self, cursor: str | None, limit: int) -> tuple[list[dict[str, Any]], str | None]:
        """`limit` tabs' page_list rows (with their frames) after `cursor`, and the cursor of the next ones."""


class Replicas(Protocol):
    """The other replicas' pages: found, listed, and the messages that cross between replicas."""

    def remote(self, instance_id: str) -> Instance | None:
        """A page another replica holds (None: not one we know of)."""

    def remote_tabs(self) -> list[Instance]:
        """Other replicas' live tabs."""

    def remote_rows(self) -> list[dict[str, Any]]:
        """Other replicas' pages as the cockpit lists them (what is known here now, no round trip)."""

    async def replica_urls(self) -> list[str]:
        """Every live replica's page-channel URL, this one's first."""

    def relay_result(self, instance_id: str, msg: ResultMsg) -> bool:
        """A result this replica got for a call another replica waits on: sent on (False: nobody waits)."""

    async def authenticate(self, instance_id: str, secret: str) -> Instance | None:
        """Another replica's page, if `secret` is its own (its up messages reached this replica)."""

    async def forward_up(self, inst: Instance, data: dict[str, Any]) -> None:
        """Hand an up message of another replica's page to that replica."""

    def page_changed(self, inst: Instance, gone: bool) -> None:
        """The registry changed one of this bridge's pages (attach, detach, frames…) or dropped it (gone)."""


class SharedQuestions(Protocol):
    """Questions asked on any replica, answered on any."""

    def observe(self, q: Question, opened: bool) -> None:
        """A question of this bridge opened, or closed (answered, forgotten)."""

    def open_questions(self) -> list[Question]:
        """Open questions other replicas asked."""

    def get(self, question_id: str) -> Question | None: ...

    def forward(self, question_id: str, answer: Any, via: str, instance_id: str | None) -> bool:
        """An answer to another replica's question: sent to it (False: not one we know of)."""


class SharedInbox(Protocol):
    """The inbox every replica shows, its ids given cluster-wide."""

    def take(self, item: Item) -> bool:
        """A new inbox item: True when the shared store takes it (and gives it its id on the way back)."""

    def mark(self, ids: list[int], status: Any) -> None: ...

    async def settled(self, item: Item) -> int | None:
        """The id an item the human typed got (None: not in time)."""


@dataclass
class Shared:
    """What one backend gives: its parts (None: it has no such part), started and stopped with the app."""

    pages: PageIds
    #: (consent class, verified origin) pairs the human allowed ("Allow on this origin"), on every replica.
    approvals: set[tuple[str, str]] = field(default_factory=set)
    replicas: Replicas | None = None
    questions: SharedQuestions | None = None
    inbox: SharedInbox | None = None
    #: What the app's lifespan starts and stops (None: nothing to).
    on_start: Callable[[], Awaitable[None]] | None = None
    on_stop: Callable[[], Awaitable[None]] | None = None

    async def start(self) -> None:
        if self.on_start is not None:
            await self.on_start()

    async def stop(self) -> None:
        if self.on_stop is not None:
            await self.on_stop()


@dataclass(frozen=True)
class Parts:
    """What a backend is built from: this bridge's own objects, and callbacks into what is built after it (the
    dispatcher and the human loop find remote pages and questions through it)."""

    settings: Settings
    registry: Registry
    pending: Pending
    inbox: Inbox
    questions: Questions
    spawn: Callable[[Awaitable[Any]], Any]
    #: A page the bridge knew went away: `why` is unloading, reloaded or gone (its callers hear it).
    page_lost: Callable[[Instance, str], None]
    #: A page of this bridge or of another replica, by its instance id.
    lookup: Callable[[str], Instance | None]
    #: What a page's up message (or event) does, on whichever replica it arrived (bridge/pages/up_messages.py).
    up: Callable[[Instance, UpMessage], Any]
    event: Callable[[Instance, EventMsg], Any]
    #: Settle one of this bridge's questions with an answer given on another replica's cockpit.
    settle: Callable[[Question, Any], bool]


def backend_name(settings: Settings) -> str:
    """The backend the settings' URL names (`local` without --cluster)."""
    return urlsplit(settings.cluster).scheme if settings.cluster else "local"


def backend(settings: Settings) -> Backend:
    name = backend_name(settings)
    if name not in BACKENDS:
        raise ValueError(f"--cluster {settings.cluster!r}: no shared-state backend for {name}:// URLs; known: "
                         f"{', '.join(s + '://' for s in BACKENDS if s != 'local')}.")
    return BACKENDS[name]


def missing(settings: Settings) -> str | None:
    """What the picked backend needs and this install lacks (or why the URL names none), said for the human; None
    when it loads."""
    try:
        need = backend(settings).needs
    except ValueError as exc:
        return str(exc)
    if need and importlib.util.find_spec(need[0]) is None:
        return f"--cluster needs the Redis client: pip install 'dbg-bridge[{need[1]}]'."
    return None


def _load(spec: str) -> Any:
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def build(parts: Parts) -> Shared:
    """The parts of the backend these settings pick (built before the dispatcher, which finds remote pages through
    them)."""
    return _load(backend(parts.settings).parts)(parts)


def open_store(settings: Settings) -> Any:
    """The skills-and-memory store of the backend these settings pick (bridge/skills/store.py)."""
    return _load(backend(settings).store)(settings)
