"""Questions shown to the human in their page: ask (bounded wait), re-show after a reload, settle from the cockpit,
dismiss."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from bridge import errors
from bridge.pages.dispatch import Target
from bridge.human.elicit import offer
from bridge.human.parts import HumanParts
from bridge.server.progress import reporting
from bridge.human.questions import Kind, Question
from bridge.pages.registry import Instance

log = logging.getLogger("bridge.human")


class Asking(HumanParts):
    """Asks the human in a page's tab (and the cockpit, and an MCP client that can answer) and takes the question
    down again once it is settled."""

    async def ask(self, target: Target, kind: Kind, text: str, choices: list[str] | None = None,
                  detail: str = "", wait: float = 60.0, human_only: bool = False) -> tuple[Question, bool]:
        """Show a question in the target's tab and wait (bounded) for the answer: (question, answered in time).
        A `human_only` one is answered in the cockpit only: the tab shows a note pointing there, no card."""
        q = self.questions.ask(kind, text, target.inst.id, choices, detail, human_only=human_only)
        try:
            if human_only:
                await self.dispatcher.call_page(f"{target.inst.id}/host", "notify", {
                    "message": "The agent asks something only you can allow: answer it in the dbg-bridge cockpit "
                               f"({self.settings.base_url()}/).", "level": "warning", "durationMs": 10000}, 10)
            else:
                await self.dispatcher.call_page(f"{target.inst.id}/host", "ask", q.frame(), 10)
        except errors.BridgeError:
            self.questions.forget(q)
            raise
        self.audit.human("question", f"{target.inst.id}/host", questionId=q.id, question=kind, text=text,
                         **({"answeredIn": "cockpit"} if human_only else {}))
        # consent is the human's: never offered to the MCP client (its token is the agent's, bridge/server/principals.py)
        client = None if kind == "consent" else offer(self.questions, q, self.settings.stateless)
        try:
            what = ("the human to answer the consent prompt" if kind == "consent"
                    else f"the human to answer {text[:80]!r}")
            async with reporting(f"{what} in {target.inst.id}/host", wait):
                await asyncio.wait_for(asyncio.shield(q.future), wait)
            return q, True
        except TimeoutError:
            return q, False
        except asyncio.CancelledError:
            # The tool call was cancelled: nobody will read the answer, so the card leaves the page.
            if q.open:
                self.audit.human("question", f"{target.inst.id}/host", questionId=q.id, question=kind,
                                 outcome="cancelled")
                self.spawn(self.dismiss(q))
            raise
        finally:
            if client is not None:
                client.cancel()  # answered in the page or the cockpit (or over): the client's form closes
                # Wait for the SDK's courtesy notifications/cancelled to go out on the call's stream before the
                # result closes that stream (bounded).
                await asyncio.wait({client}, timeout=2)
                if q.via == "client":  # answered by the client: the card leaves the page
                    self.spawn(self._take_down(q))

    def forget(self, q: Question) -> None:
        """Drop a question that was answered (or given up on) and needs no card taken down."""
        self.questions.forget(q)

    async def _take_down(self, q: Question) -> None:
        try:
            await self.dispatcher.call_page(f"{q.instance_id}/host", "ask", {"dismiss": q.id}, 5)
        except errors.BridgeError:
            pass

    def settle_from_cockpit(self, q: Question, value: Any) -> bool:
        """The human answered `q` in a cockpit (this one, or another replica's): settle it, tell the agent, and take
        the question off the page. False if it was answered meanwhile."""
        if self.questions.answer(q.id, None, value, "cockpit") is None:
            return False
        if q.kind != "consent":
            shown = value if isinstance(value, str) else json.dumps(value)
            self.inbox.add("answer", f"{q.text} → {shown[:200]}", f"{q.instance_id}/host",
                           {"questionId": q.id, "answer": value, "via": "cockpit"}, source="human")
        self.spawn(self._take_down(q))  # the same question may still show in the page
        return True

    def reshow(self, inst: Instance) -> None:
        """A tab came back (reload, reconnect): show it, in the background, the questions still waiting for it."""
        if self.questions.open_for(inst.id):
            self.spawn(self.show_open_questions(inst))

    async def show_open_questions(self, inst: Instance) -> None:
        """Show a tab that came back the questions still waiting for its human."""
        for q in self.questions.open_for(inst.id):
            if q.human_only:
                continue
            try:
                await self.dispatcher.call_page(f"{inst.id}/host", "ask", q.frame(), 10)
            except errors.BridgeError as exc:
                log.info("could not re-show question %s on %s: %s", q.id, inst.id, exc)

    async def dismiss(self, q: Question) -> None:
        """Take an unanswered question off the page (best effort) and forget it."""
        self.questions.forget(q)
        await self._take_down(q)
