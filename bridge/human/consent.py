"""Consent: one rule per page command (bridge/pages/protocol.py COMMAND_TABLE), enforced on every path that
reaches it."""

from __future__ import annotations

import json
from contextvars import ContextVar
from typing import Any
from urllib.parse import urljoin, urlsplit

from pydantic import BaseModel

from bridge import errors
from bridge.audit import Audit
from bridge.pages.dispatch import Dispatcher, Target
from bridge.human.asking import Asking
from bridge.pages.commands import COMMAND_TABLE, parse_params, to_wire
from bridge.settings import Settings

CONSENT_ONCE, CONSENT_ORIGIN, CONSENT_DENY = "Allow once", "Allow on this origin", "Deny"

#: Consent classes the call being handled needs no prompt for: a run's `--allow` (bridge/runs/toolbox.py sets it
#: around each of the run's calls; nothing else does). Each such decision is audited as "allowed by run".
PREAPPROVED: ContextVar[frozenset[str]] = ContextVar("dbg_preapproved", default=frozenset())
#: Who granted the run's `allow` (bridge/runs/loop.py sets it for the run's task): "terminal", "cockpit", or
#: "config" (--run-allow, which is all an agent's run gets).
GRANTED_BY: ContextVar[str] = ContextVar("dbg_granted_by", default="config")

#: Classes that reach beyond the page (the human's disk): answered in the cockpit only, never by a card in the page
#: (its own scripts share the card's world) nor by an MCP client (the token is the agent's). open_file (bridge/human/
#: editor.py) and desktop input on an attached display (the cockpit's Desktop tab) are held the same way.
COCKPIT_ONLY = frozenset({"upload"})

#: What each consent class asks the human, and what a denial tells the agent to do instead.
CONSENT_TEXT = {
    "eval": ("The agent wants to run code in {page} ({origin}).",
             "Do not retry the same code; ask them why (user_ask) or use page_snapshot/page_find/page_act instead."),
    "navigate": ("The agent wants to leave {origin} for another site in {page}.",
                 "Stay on this origin, or ask the human (user_ask) where to go."),
    "submit": ("The agent wants to submit a form in {page} ({origin}).",
               "Ask the human (user_ask) before submitting, or fill the form and let them submit it."),
    "tool": ("The agent wants to call a tool the page registered (WebMCP) in {page} ({origin}).",
             "Do not retry the same call; ask them why (user_ask), or use page_snapshot/page_act instead."),
    "upload": ("The agent wants to hand these files to {page} ({origin}) as if chosen in its file picker.",
               "Ask the human (user_ask) which file to upload, or let them pick it themselves."),
}


def served_by_bridge(origin: str, port: int) -> bool:
    """The origin is the bridge's own (its /demo, a per-tab *.localhost host): code there shares the cockpit's origin
    and so could act as the cockpit, so running it is asked in the cockpit only."""
    parts = urlsplit(origin)
    host = (parts.hostname or "").lower()
    return parts.port == port and (host in ("127.0.0.1", "localhost", "::1") or host.endswith(".localhost"))


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


_C0_EDGES = "".join(map(chr, range(0x21)))


def browser_join(base: str, url: str) -> str:
    """Resolve `url` against `base` roughly as a browser's URL parser does for http(s) pages: leading and trailing
    controls and spaces dropped, tabs and newlines removed, backslashes read as slashes. Only used to decide
    whether a navigation leaves the origin; when in doubt it looks like another origin (and the human is asked)."""
    cleaned = url.strip(_C0_EDGES).replace("\t", "").replace("\n", "").replace("\r", "").replace("\\", "/")
    return urljoin(base, cleaned)


def page_origin(target: Target) -> str:
    """The origin approvals are keyed by: the one the browser proved (the request's Origin header), else (a page
    that is no browser, e.g. a local script) what it claimed."""
    inst = target.inst
    if inst.verified_origin:
        return inst.verified_origin
    frame = inst.frames.get(target.frame_id)
    return (frame.origin if frame and frame.origin else inst.origin) or origin_of(inst.url)


def tool_call_preview(params: dict[str, Any]) -> str:
    """What the human is shown before a page tool runs: its name and arguments (the page's own description is not
    repeated: it is the page's word, not the agent's)."""
    args = json.dumps(params.get("arguments") or {}, ensure_ascii=False)
    return f"{params.get('name')}({args if len(args) <= 400 else args[:400] + '…'})"


class Consent:
    """The human's consent before a command of a dangerous class runs on an origin they have not approved for it,
    and the refusal of commands whose tool `--disable-tools` turned off."""

    def __init__(self, dispatcher: Dispatcher, asking: Asking, audit: Audit, settings: Settings,
                 approved: set[tuple[str, str]]) -> None:
        self.dispatcher = dispatcher
        self.asking = asking
        self.audit = audit
        self.settings = settings
        #: (consent class, verified origin) pairs the human allowed for this bridge's lifetime (every replica's).
        self.approved = approved

    async def require(self, target: Target, kind: str, detail: str) -> None:
        """Ask the human before a dangerous action of class `kind` (eval, navigate, submit) on an origin they have
        not approved for it. Nothing to ask with --no-consent or when the class is not in --consent-for."""
        settings, audit = self.settings, self.audit
        if settings.no_consent or kind not in settings.consent_for:
            return
        origin = page_origin(target)
        if (kind, origin) in self.approved:
            return
        if kind in PREAPPROVED.get():
            audit.human("consent", target.page_id, action=kind, origin=origin, decision="allowed by run",
                        grantedBy=GRANTED_BY.get())
            return
        question, instead = CONSENT_TEXT[kind]
        preview = detail if len(detail) <= 600 else detail[:600] + "…"
        own = served_by_bridge(origin, settings.port)
        cockpit_only = kind in COCKPIT_ONLY or (own and kind in ("eval", "tool"))
        choices = [CONSENT_ONCE, CONSENT_DENY] if cockpit_only else [CONSENT_ONCE, CONSENT_ORIGIN, CONSENT_DENY]
        text = question.format(page=target.page_id, origin=origin)
        if own:
            text += " This page is served by the bridge itself: code there could act as the cockpit."
        q, answered = await self.asking.ask(target, "consent", text, choices, preview, settings.consent_wait,
                                            human_only=cockpit_only)
        if not answered:
            where = "in the bridge cockpit" if cockpit_only else f"in {target.page_id}"
            audit.human("consent", target.page_id, questionId=q.id, action=kind, origin=origin, decision="timeout")
            await self.asking.dismiss(q)
            raise errors.BridgeError(
                f"Nobody answered the consent prompt {where} within {settings.consent_wait:g} s, so nothing ran. "
                "Ask the human to look at it (user_notify), or use page_snapshot/page_find/page_act, which need no "
                "consent.", code="consent_timeout")
        self.asking.forget(q)
        audit.human("consent", target.page_id, questionId=q.id, action=kind, origin=origin, decision=q.answer,
                    via=q.via)
        if q.answer == CONSENT_ORIGIN:
            self.approved.add((kind, origin))
        elif q.answer != CONSENT_ONCE:
            raise errors.BridgeError(f"The human said no ({kind} on {origin}). {instead}", code="consent_denied")

    def require_enabled(self, command: str) -> None:
        """Refuse a command whose owning tool `--disable-tools` turned off, whichever tool tried to reach it."""
        spec = COMMAND_TABLE.get(command)
        if spec is None:
            raise errors.BridgeError(f"'{command}' is not a page command. Known: {', '.join(COMMAND_TABLE)}.",
                                     code="bad_arguments")
        if spec.tool and self.settings.tool_disabled(spec.tool, spec.read_only):
            raise errors.BridgeError(
                f"The command '{command}' belongs to {spec.tool}, which this bridge disables (--disable-tools), so "
                "it cannot be reached through page_exec either. Ask the human to enable it, or work without it.",
                code="tool_disabled")

    async def guard(self, target: Target, command: str, given: BaseModel | dict[str, Any] | None,
                    timeout: float) -> BaseModel:
        """Apply `command`'s policy before it runs: refused if its tool is disabled, its params checked (returned
        as its params model reads them), and its consent class asked for when this call needs it (eval always;
        navigate to another origin; act when it would submit a form)."""
        self.require_enabled(command)
        checked = parse_params(command, given)
        kind = COMMAND_TABLE[command].consent
        if kind is None or self.settings.no_consent or kind not in self.settings.consent_for:
            return checked
        params = to_wire(checked)
        if kind == "eval":
            await self.require(target, "eval", str(params.get("code", "")))
        elif kind == "navigate":
            if (params.get("action") or "goto") == "goto" and params.get("url"):
                frame = target.inst.frames.get(target.frame_id)
                here = (frame.url if frame is not None and frame.url else target.inst.url) or page_origin(target)
                there = browser_join(here, params["url"])
                if origin_of(there) != page_origin(target):
                    await self.require(target, "navigate", f"{here} → {there}")
        elif kind == "tool":
            await self.require(target, "tool", tool_call_preview(params))
        elif kind == "submit" and params.get("dryRun") is not True:
            _, check = await self.dispatcher.call_page(target.page_id, "act", {**params, "dryRun": True}, timeout)
            submits = check.get("submits") if isinstance(check, dict) else None
            if submits:
                await self.require(target, "submit", "\n".join(map(str, submits)))
        return checked
