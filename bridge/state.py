"""`BridgeState`: the app-wide objects of one bridge, built once (create_app; the in-memory tests alike) and handed
to what needs them: the MCP server and its tools, the routes, the cockpit, the agent.

The Dispatcher is one of them and holds only what its one job needs (addressing pages, waiting for them, calling
them); the human loop's parts (asking, consent, open-file) are small objects of their own built here."""

from __future__ import annotations

import asyncio
from typing import Any

from bridge.shared import seam as shared_state
from bridge.audit import Audit
from bridge.server.background import Background
from bridge.server.clients import Clients
from bridge.pages.leases import Leases
from bridge.pages.dispatch import Dispatcher
from bridge.human.asking import Asking
from bridge.human.consent import Consent
from bridge.human.editor import OpenFile
from bridge.human.events import page_event
from bridge.human.inbox import Inbox
from bridge.pages.pending import Pending
from bridge.human.questions import Questions
from bridge.pages.registry import Registry
from bridge.pages.up_messages import handle_up
from bridge.settings import Settings
from bridge.shared.seam import Parts, Shared
from bridge.pages.stacks import SourceMaps
from bridge.pages.webmcp import WebTools


class BridgeState:
    """Everything one bridge holds, each part built once with what it needs passed in."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        #: Fire-and-forget work (announcements, re-shown questions, cancel frames), held until done.
        self.background = Background()
        # the single-machine parts tell the shared state of their changes (it is built below, once they exist:
        # they are told only once pages and questions come, at run time)
        self.registry = Registry(settings.page_ttl, settings.max_pending_pages,
                                 on_change=self._page_changed)
        self._secrets: tuple[object, frozenset[str]] = (None, frozenset())
        self.pending = Pending()
        self.inbox = Inbox(share=_InboxShare(self))
        self.clients = Clients(settings.stateless)
        #: Short leases on tabs, so two agents never act on one tab at the same moment (bridge/pages/leases.py).
        self.leases = Leases()
        self.questions = Questions(on_change=self._question_changed)
        #: Pages' source maps, decoded once per module version (bridge/pages/stacks.py).
        self.source_maps = SourceMaps()
        #: The WebMCP tools each page registered (page data, checked there).
        self.webtools = WebTools(self.inbox)
        #: Every tool call and human event: appended to audit.jsonl and streamed to the cockpit.
        self.audit = Audit(None if settings.no_audit else settings.config_dir / "audit.jsonl",
                           settings.audit_max_bytes, settings.audit_keep, self.page_secrets)
        self.inbox.hooks.append(self.audit.inbox_item)
        #: The bridge.desktop.service.Desktop, built by open_desktop and closed by close_desktop, in the app's
        #: lifespan (None: not built, or disabled).
        self.desktop: Any = None
        #: Skills and memory (bridge.skills.service.SkillService), built by create_app; None until then.
        self.skills: Any = None
        #: The one road into tools for what calls one inside the bridge (bridge.tools.road.Road), built with the
        #: MCP server; None until then.
        self.road: Any = None
        #: The runs of this bridge (bridge.runs.service.Agent), built by the app; None outside one.
        self.agent: Any = None
        spawn = self.background.spawn
        #: Pages, questions and the inbox as every replica sees them (bridge/shared/seam.py, picked once by the
        #: --cluster URL), built from the parts it uses and callbacks into the objects built from it below.
        self.shared: Shared = shared_state.build(Parts(
            settings, self.registry, self.pending, self.inbox, self.questions, spawn, page_lost=self._page_lost,
            lookup=lambda iid: self.dispatcher.lookup(iid), up=lambda inst, msg: handle_up(self, inst, msg),
            event=lambda inst, msg: page_event(self, inst, msg),
            settle=lambda q, answer: self.asking.settle_from_cockpit(q, answer)))
        #: Addressing, waiting for and calling pages: the one path to a page.
        self.dispatcher = Dispatcher(settings, self.registry, self.pending, self.shared.replicas, spawn)
        #: Questions shown to the human in their page.
        self.asking = Asking(self.dispatcher, self.questions, self.audit, self.inbox, settings, spawn)
        #: The human's consent before a dangerous command (approvals shared by every replica).
        self.consent = Consent(self.dispatcher, self.asking, self.audit, settings, self.shared.approvals)
        #: A page's open_file requests, held for the human's confirmation in the cockpit.
        self.open_file = OpenFile(self.dispatcher, self.questions, self.audit, self.inbox, settings, spawn)

    def open_desktop(self) -> None:
        """Build the Desktop when the desktop_* family is served (only an object until a desktop tool runs
        something); who has an attached desktop is told to the inbox. Called from the event loop that owns it."""
        from bridge.desktop import served
        from bridge.desktop.service import Desktop

        loop = asyncio.get_running_loop()

        def control_changed(control: dict[str, Any]) -> None:  # from the desktop's watcher thread
            text = ("The human took the desktop: the agent's desktop input is refused until they hand it back"
                    if control["holder"] == "human" else "The desktop is the agent's again")
            loop.call_soon_threadsafe(lambda: self.inbox.add(
                "desktop_control", f"{text} ({control['reason']}).", None, control, source="human"))

        self.desktop = Desktop(self.settings, control_changed) if served(self.settings) else None

    async def close_desktop(self) -> None:
        """Stop the desktop's backend (its display and apps) and its worker."""
        desktop, self.desktop = self.desktop, None
        if desktop is not None:
            await asyncio.to_thread(desktop.close)

    def _page_changed(self, inst: Any, gone: bool) -> None:
        if self.shared.replicas is not None:
            self.shared.replicas.page_changed(inst, gone)

    def _question_changed(self, q: Any, opened: bool) -> None:
        if self.shared.questions is not None:
            self.shared.questions.observe(q, opened)

    def _page_lost(self, inst: Any, why: str) -> None:
        """Another replica's page (or one another replica took) went away: its callers here hear why."""
        lost = {"unloading": self.dispatcher.page_unloading, "reloaded": self.dispatcher.page_reloaded}
        lost.get(why, self.dispatcher.page_disconnected)(inst)

    def page_secrets(self) -> frozenset[str]:
        """Every known page's secret, rebuilt only when the registry changed (the audit redacts them per record)."""
        if self._secrets[0] is not self.registry.changed:
            self._secrets = (self.registry.changed, frozenset(i.secret for i in self.registry.instances.values()))
        return self._secrets[1]


class _InboxShare:
    """The inbox's items shared through the shared state (whichever it is once built)."""

    def __init__(self, state: BridgeState) -> None:
        self.state = state

    def take(self, item: Any) -> bool:
        shared = self.state.shared.inbox
        return shared is not None and shared.take(item)

    def mark(self, ids: list[int], status: Any) -> None:
        if (shared := self.state.shared.inbox) is not None:
            shared.mark(ids, status)
