"""What a page's up message does, whichever channel it came by (WebSocket, a POST) and whichever replica took it
(a team bridge hands another replica's page's messages to that replica, which applies them here)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

from bridge.pages import protocol
from bridge.human import page_event
from bridge.human.events import EventTarget
from bridge.pages.protocol import ByeMsg, DevMsg, EventMsg, FramesMsg, LeavingMsg, ResultMsg, ToolsMsg
from bridge.pages.registry import Instance, OriginMismatch, claimed_url_ok

if TYPE_CHECKING:
    from bridge.pages.dispatch import Dispatcher
    from bridge.pages.pending import Pending
    from bridge.pages.registry import Registry
    from bridge.pages.webmcp import WebTools


class UpTarget(EventTarget, Protocol):
    """What a page's up messages reach (bridge/state.py's BridgeState is one)."""

    pending: Pending
    registry: Registry
    dispatcher: Dispatcher
    webtools: WebTools

log = logging.getLogger("bridge.pages")


def handle_up(state: UpTarget, inst: Instance, msg: protocol.UpMessage) -> bool:
    """Apply one message from a page. False if it was a result nobody is waiting for (stale or forged).
    Raises OriginMismatch for a url off the page's verified origin, RateLimited for too many open_file requests."""
    inst.touch()
    if isinstance(msg, ResultMsg):
        replicas = state.shared.replicas
        return state.pending.resolve(inst.id, msg) or (replicas is not None and replicas.relay_result(inst.id, msg))
    if isinstance(msg, FramesMsg):
        if not claimed_url_ok(inst, msg.url):
            raise OriginMismatch(f"the page claims url {(msg.url or '')[:200]} but it runs on {inst.verified_origin}")
        state.registry.update_frames(inst, msg.frames, msg.url, msg.title, msg.complete)
    elif isinstance(msg, ByeMsg):
        state.dispatcher.page_unloading(inst, msg.to)
    elif isinstance(msg, LeavingMsg):
        state.registry.leaving(inst, not msg.stayed)
    elif isinstance(msg, ToolsMsg):
        state.webtools.update(inst, msg.tools, msg.total)
    elif isinstance(msg, DevMsg):
        state.registry.dev_update(inst, msg.dev)
    elif isinstance(msg, EventMsg):
        if msg.eventId is not None and not inst.first_sight(msg.eventId):
            log.debug("page %s sent event %s again; acknowledged and ignored", inst.id, msg.eventId)
            return True
        return page_event(state, inst, msg)
    return True
