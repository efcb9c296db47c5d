"""`Page`: what a page or user tool works on — one page or frame, resolved once from its pageId."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from bridge.server.agents import holder

if TYPE_CHECKING:
    from bridge.pages.dispatch import Target
    from bridge.settings import Settings
    from bridge.state import BridgeState
    from bridge.pages.webmcp import WebTools

#: A ref from a snapshot with includeFrames ('f0:e3@ab') names the frame it lives in.
FRAME_REF = re.compile(r"^(f\d+):(e\d+(?:@[a-z]{2})?)$")


class Page:
    """One resolved page or frame: run commands in it (with their consent policy), ask its human, reach its tab or
    frames.

    It reaches the page through the dispatcher, and the human through the bridge's asking and consent objects; the
    request context (`ctx`) rides along for progress and cancellation."""

    def __init__(self, state: BridgeState, target: Target, ctx: Any = None) -> None:
        self._state = state
        self.target = target
        self.ctx = ctx

    @property
    def page_id(self) -> str:
        return self.target.page_id

    @property
    def settings(self) -> Settings:
        return self._state.settings

    @property
    def web_tools(self) -> WebTools:
        """The WebMCP tools pages registered, as the bridge keeps them (bridge/pages/webmcp.py)."""
        return self._state.webtools

    @property
    def skills(self) -> Any:
        """The bridge's skills and memory (bridge.skills.service.SkillService; None when not built)."""
        return self._state.skills

    @property
    def source_maps(self) -> Any:
        """The bridge's decoded source maps (bridge/stacks.py SourceMaps)."""
        return self._state.source_maps

    @property
    def connection(self) -> object:
        """The tab's current channel (an opaque token: a new one after a reload)."""
        return self.target.inst.conn

    async def call(self, command: str, params: BaseModel | dict[str, Any] | None = None,
                   timeout: float | None = None) -> Any:
        """Run a client command here (its params checked by its params model) and return its result, or raise a
        named error. The target is kept as the call found it (the page may have come back on a new connection
        meanwhile)."""
        self.target, result = await self._state.dispatcher.call(self.target, command, params, timeout)
        return result

    async def guard(self, command: str, params: BaseModel | dict[str, Any] | None,
                    timeout: float | None = None) -> BaseModel:
        """Apply `command`'s policy here before it runs: refused if the tool owning it is disabled, its params
        checked (returned as its params model reads them), the human's consent asked when its consent class needs
        it (bridge/human/consent.py)."""
        return await self._state.consent.guard(self.target, command, params, timeout or self.settings.exec_timeout)

    async def consent(self, kind: str, detail: str) -> None:
        """Ask the human before an action of consent class `kind` here (raises when refused or unanswered)."""
        await self._state.consent.require(self.target, kind, detail)

    async def run(self, command: str, params: BaseModel | dict[str, Any] | None = None,
                  timeout: float | None = None) -> Any:
        """Run a command on the agent's behalf: its policy first (`guard`), then the call."""
        return await self.call(command, await self.guard(command, params, timeout), timeout)

    async def ask(self, kind: Any, text: str, choices: list[str] | None, wait: float) -> tuple[Any, bool]:
        """Show a question in this page's tab and wait (bounded): (question, answered in time)."""
        return await self._state.asking.ask(self.target, kind, text, choices, wait=wait)

    def forget_question(self, question: Any) -> None:
        self._state.asking.forget(question)

    async def wait_reload(self, before: object, timeout: float, doc: str | None = None,
                          leaves: bool | None = None) -> bool:
        """After starting a navigation from document `doc`: True once another document is back under this page's
        id on a new channel, False if the navigation kept (or left it at) that document."""
        return await self._state.dispatcher.wait_reload(self.target, before, timeout, doc=doc, leaves=leaves)

    @property
    def desktop(self) -> Any:
        """The bridge's Desktop (bridge/desktop/service.py), or None when desktop tools are not served."""
        return self._state.desktop

    @property
    def registry(self) -> Any:
        """This bridge's tabs (bridge/pages/registry.py): page_open waits there for the tab it opened."""
        return self._state.registry

    def own(self, tab_id: str) -> bool:
        """Make tab `tab_id` the calling agent's own (bridge/pages/leases.py); False when no agent calls."""
        if self.ctx is None:
            return False
        key, who = holder(self.ctx, self.settings.stateless)
        self._state.leases.own(tab_id, key, who, self._state.registry.instances.get(tab_id))
        return True

    @property
    def document(self) -> str | None:
        """The identity of the page's document as it last registered (None for a client that sends none)."""
        return self.target.inst.doc

    def first_time(self, note: str) -> bool:
        """True the first time the calling agent is told `note` (notes are said once per session, not per answer)."""
        return self.ctx is None or self._state.clients.agents.first_time(self.ctx, note)

    def frame(self, frame_id: str) -> Page:
        """Another frame of the same tab (`host` for the top document)."""
        return Page(self._state, self._state.dispatcher.resolve(f"{self.target.inst.id}/{frame_id}"), self.ctx)

    @property
    def tab(self) -> Page:
        """The top frame of this page's tab (where the human panel lives)."""
        return self if self.target.frame_id == "host" else self.frame("host")

    def for_ref(self, ref: str | None) -> tuple[Page, str | None]:
        """A ref from a snapshot with includeFrames ('f0:e3@ab') targets its frame: (that frame, the bare ref)."""
        m = FRAME_REF.match(ref or "")
        if not m:
            return self, ref
        return self.frame(m.group(1)), m.group(2)


P = TypeVar("P", bound=BaseModel)


def in_frame(page: Page, params: P) -> tuple[Page, P]:
    """A ref from a snapshot with includeFrames ('f0:e3@ab') addresses its frame: (that frame, params with the bare
    ref)."""
    ref = getattr(params, "ref", None)
    frame, bare = page.for_ref(ref)
    return (frame, params) if bare == ref else (frame, params.model_copy(update={"ref": bare}))
