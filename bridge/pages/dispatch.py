"""Send one command to one page or frame and wait for its answer: the only path tools take to a page."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from bridge import errors
from bridge.server.background import Spawn
from bridge.pages.commands import parse_params, to_wire
from bridge.pages.pending import Pending, Waiter
from bridge.server.progress import reporting
from bridge.pages.protocol import CancelFrame, ExecFrame, ResultMsg, dump
from bridge.pages.registry import LOST_GRACE, lost_to, Instance, Registry, split_page_id
from bridge.settings import Settings
from bridge.shared.seam import Replicas

#: How long a call addressed to a reloading/reconnecting page waits for it to come back.
RECONNECT_WAIT = 10.0
#: How long new calls wait for the next document once a page said it is navigating away (its client says within
#: 3 s when the navigation went nowhere; this bounds the wait should that word be lost).
LEAVING_WAIT = 5.0


@dataclass(frozen=True)
class Target:
    inst: Instance
    frame_id: str

    @property
    def page_id(self) -> str:
        return f"{self.inst.id}/{self.frame_id}"


class Dispatcher:
    """Addresses pages (a pageId to a target), waits for them (reloading, reconnecting, navigating) and calls them
    (the pending table): tools reach a page through `call_page` / `call` and nothing lower."""

    def __init__(self, settings: Settings, registry: Registry, pending: Pending, replicas: Replicas | None,
                 spawn: Spawn) -> None:
        self.settings = settings
        self.registry = registry
        self.pending = pending
        #: Where other replicas' pages are found (bridge/shared/seam.py; None: a lone bridge).
        self.replicas = replicas
        #: Runs the cancel frames a timed-out or cancelled call sends, in the background.
        self.spawn = spawn

    # ---- addressing -----------------------------------------------------------------------

    def resolve(self, page_id: str | None, provisional: bool = True) -> Target:
        """Turn a pageId (or None: the one live tab's top frame) into a target, or raise a helpful error.

        A frame the page has not listed *yet* (it is away, or its document is still parsing) resolves
        provisionally; `target()` (and so `call_page`) then waits for it."""
        if page_id is None or not page_id.strip():
            page_id = self.only_tab()
        parts = split_page_id(page_id)
        if parts is None:
            raise errors.UnknownPage(
                f"'{page_id}' is not a pageId. A pageId looks like '5173/host' or 'ab123/f0'; call page_list."
            )
        inst = self.lookup(parts[0])
        if inst is None:
            raise errors.UnknownPage(
                f"No page '{page_id}' is known (it may have expired after {self.settings.page_ttl:.0f} s away). "
                "Call page_list to see the pages that are connected."
            )
        frame_id = parts[1]
        if frame_id != "host":
            frame = inst.frames.get(frame_id)
            if frame is None and provisional and self._frame_may_come(page_id):
                return Target(inst, frame_id)
            if frame is None:
                known = ", ".join(f"{inst.id}/{f}" for f in inst.frames if f != "host") or "none"
                raise errors.UnknownPage(
                    f"Page {inst.id} has no frame '{frame_id}' (its frames: {known}"
                    f"{'; its document is still loading' if inst.frames_pending else ''}). Call page_list."
                )
            if frame.crossOrigin:
                raise errors.CrossOriginFrame(
                    f"Frame {inst.id}/{frame_id} is cross-origin ({frame.origin or frame.url}); the client cannot "
                    "reach into it. Load the client in that page too and it appears as its own page in page_list."
                )
        return Target(inst, frame_id)

    def only_tab(self) -> str:
        """With pageId left out: the top frame of the one live tab, or an error naming the choices."""
        tabs = [i for i in self.registry.instances.values() if i.live]
        if self.replicas is not None:
            tabs += self.replicas.remote_tabs()
        if len(tabs) == 1:
            return f"{tabs[0].id}/host"
        if not tabs:
            raise errors.NoPageConnected(
                "No page is connected. Open the app with the client injected "
                f"(<script src=\"{self.settings.base_url()}/inject/dbg_client.js\"></script>, or the demo at "
                f"{self.settings.base_url()}/demo), then call page_list."
            )
        shown = "; ".join(f"{i.id}/host {i.title[:60]!r}" for i in tabs[:20]) + (" …" if len(tabs) > 20 else "")
        raise errors.AmbiguousPage(f"{len(tabs)} tabs are live, so pageId is needed: pass one of {shown} "
                                   "(page_list shows their frames too).")

    def _frame_may_come(self, page_id: str | None) -> Instance | None:
        """The instance of `page_id` when its frame is not listed *yet*: the page is away, or its document is still
        parsing (a reload registers before its iframes exist)."""
        parts = split_page_id(page_id or "")
        inst = self.lookup(parts[0]) if parts else None
        if inst is None or parts is None or parts[1] == "host" or parts[1] in inst.frames:
            return None
        return inst if (not inst.live or inst.frames_pending) else None

    def _ready(self, target: Target) -> bool:
        """A resolved target that can take a command now: its page is live and still registered, its frame listed."""
        inst = target.inst
        return (inst.live and self.lookup(inst.id) is inst and self._leaving_until(inst) is None
                and (target.frame_id == "host" or target.frame_id in inst.frames))

    @staticmethod
    def _leaving_until(inst: Instance) -> float | None:
        """Until when (monotonic) calls wait for the next document: its document said it is navigating away."""
        if inst.leaving_since is None:
            return None
        until = inst.leaving_since + LEAVING_WAIT
        return until if time.monotonic() < until else None

    def lookup(self, instance_id: str) -> Instance | None:
        """A page of this bridge, or of another replica."""
        inst = self.registry.instances.get(instance_id)
        if inst is None and self.replicas is not None:
            return self.replicas.remote(instance_id)
        return inst

    async def target(self, page_id: str | None, timeout: float) -> Target:
        """`resolve`, but a page that is reloading, reconnecting or coming back after a bridge restart (its id was
        kept) is waited for, bounded, like its frames that are not registered yet."""
        deadline = time.monotonic() + min(timeout, RECONNECT_WAIT)
        while True:
            try:
                target = self.resolve(page_id, provisional=False)
            except errors.UnknownPage:
                inst = self._frame_may_come(page_id)
                if inst is None or time.monotonic() >= deadline:
                    raise
                await _changed(inst, deadline)
                continue
            if target.inst.live:
                held = self._leaving_until(target.inst)
                if held is None:
                    return target
                # the old document is still up while the next one loads: the call is for the page it brings
                await _changed(target.inst, min(held, deadline))
                if time.monotonic() >= deadline:
                    return target
                continue
            await self.wait_live(target, deadline - time.monotonic(), min(timeout, RECONNECT_WAIT))

    async def wait_live(self, target: Target, timeout: float, shown: float | None = None) -> None:
        """Wait (bounded) for a reloading or reconnecting page to come back under its id."""
        inst = target.inst
        deadline = time.monotonic() + min(timeout, RECONNECT_WAIT)
        if inst.left_to is not None and inst.left_at is not None:  # it navigated: no longer than the grace
            deadline = min(deadline, inst.left_at + LOST_GRACE + 0.05)
        while not inst.live:
            if self.lookup(inst.id) is not inst:
                raise errors.PageGone(f"Page {target.page_id} expired and was removed. Call page_list.",
                                      dispatched=False)
            if (went := lost_to(inst)) is not None:
                raise errors.PageGone(
                    f"Page {target.page_id} navigated to {went} and did not come back: that page has no dbg-bridge "
                    "client (if it is another origin with the client, it is a new page in page_list), so nothing "
                    f"ran. Ask the human to go back to {inst.url or 'the app'} in that tab, or to open the app again; "
                    "then call page_list.", code="page_lost", dispatched=False)
            if deadline - time.monotonic() <= 0:
                expires = self.registry.expires_in(inst) or 0
                raise errors.PageGone(
                    f"Page {target.page_id} is not connected ({inst.state}); it did not come back within "
                    f"{shown or min(timeout, RECONNECT_WAIT):.0f} s, so nothing ran. Its pageId stays reserved for "
                    f"{expires:.0f} s more. Make sure the tab is open (reload it), then call page_list.",
                    code="page_disconnected", dispatched=False,
                )
            await _changed(inst, deadline)

    # ---- calling --------------------------------------------------------------------------

    async def call_page(
        self, page_id: str | None, command: str, params: BaseModel | dict[str, Any] | None = None,
        timeout: float | None = None
    ) -> tuple[Target, Any]:
        """Run `command` in the page/frame and return (target, result); raise a named error otherwise."""
        return await self.call(self.resolve(page_id), command, params, timeout)

    async def call(
        self, target: Target, command: str, params: BaseModel | dict[str, Any] | None = None,
        timeout: float | None = None
    ) -> tuple[Target, Any]:
        """Run `command` in a resolved page/frame (waiting, bounded, while it reloads or its frame registers) and
        return (target, result); raise a named error otherwise. Its params go through its params model whoever
        called (bad ones: bad_arguments, before anything is sent)."""
        wire = to_wire(parse_params(command, params, wire=True))
        timeout = min(timeout or self.settings.exec_timeout, self.settings.max_exec_timeout)
        # page_wait's own limit is the wait's timeout (the call's is a little longer, for the answer to travel).
        own = wire.get("timeout") if command == "wait" else None
        limit = float(own) if isinstance(own, (int, float)) and 0 < own < timeout else timeout
        async with reporting(f"page {target.page_id} to finish '{command}'", limit):
            if command != "act" or wire.get("dryRun") is True or wire.get("trusted") is False:
                return await self._call(target, command, wire, timeout)
            inst = target.inst  # an act may send trusted input (the extension's): marked for bridge/human/events.py
            inst.bridge_input += 1
            try:
                return await self._call(target, command, wire, timeout)
            finally:
                inst.bridge_input -= 1
                inst.bridge_input_at = time.monotonic()

    async def _call(self, target: Target, command: str, params: dict[str, Any],
                    timeout: float) -> tuple[Target, Any]:
        started = time.monotonic()
        if not self._ready(target):
            target = await self.target(target.page_id, timeout)
        resend_by = started + min(timeout, RECONNECT_WAIT)
        while True:
            inst, conn = target.inst, target.inst.conn
            assert conn is not None
            with self.pending.open(inst.id) as waiter:
                frame = ExecFrame(requestId=waiter.request_id, frameId=target.frame_id, command=command,
                                  params=params, timeout=timeout)
                try:
                    await conn.send(dump(frame))
                except ConnectionError:
                    pass
                else:
                    waiter.sent = True
                    msg = await self._result(target, waiter, started + timeout, timeout)
                    break
            # The channel closed under the frame (a reload, a reconnect): nothing ran, so it is sent again once
            # the page is back, within the same bound as any wait for a reconnecting page.
            if time.monotonic() >= resend_by:
                raise errors.PageGone(
                    f"Page {target.page_id} dropped its connection as the command was sent and did not come back "
                    "in time, so it never reached the page (nothing ran). Call page_list and retry.",
                    code="page_disconnected", dispatched=False,
                )
            if inst.conn is conn:
                await _changed(inst, resend_by)
            target = await self.target(target.page_id, resend_by - time.monotonic())
        if msg.ok:
            return target, msg.result
        err = msg.error
        assert err is not None or not msg.ok
        code = err.code if err else "page_exception"
        text = err.message if err else "the page reported a failure without details"
        if err and err.stack and code == "page_exception":
            text += f"\n{err.stack}"
        if code == "page_exception":
            text += "\nThe code you ran threw in the page: fix the code (see the error above) and retry."
        raise errors.PageError(f"Page {target.page_id}: {text}", code=code)

    async def _result(self, target: Target, waiter: Waiter, deadline: float, timeout: float) -> ResultMsg:
        """Wait for the answer to a sent frame until `deadline` (monotonic); a timeout or a cancellation tells the
        page the call is over."""
        inst = target.inst
        future = waiter.future
        loop = asyncio.get_running_loop()
        # A timer that fails the waiter's own future: what asyncio.wait_for does, without its second future and
        # callbacks per call.
        timer = loop.call_at(loop.time() + max(deadline - time.monotonic(), 0.001), _expire, future)
        try:
            return await future
        except TimeoutError:
            self.spawn(self._cancel(inst, waiter.request_id, target.frame_id, "timeout"))
            raise errors.PageTimeout(
                f"Page {target.page_id} did not answer within {timeout:g} s. The command reached the page and "
                "may still be running there (a busy loop, an open alert() or a paused debugger blocks the page). "
                f"{NOT_BLINDLY} Check the tab, or retry with a larger timeout (at most "
                f"{self.settings.max_exec_timeout:g} s).", dispatched=True,
            ) from None
        except asyncio.CancelledError:
            self.spawn(self._cancel(inst, waiter.request_id, target.frame_id, "cancelled"))
            raise
        finally:
            timer.cancel()

    async def _cancel(self, inst: Instance, request_id: str, frame_id: str, reason: str) -> None:
        """Tell the page a call is over (cancelled or timed out): it aborts the command's waits and actions."""
        conn = inst.conn
        if conn is None:
            return
        try:
            await conn.send(dump(CancelFrame(requestId=request_id, frameId=frame_id, reason=reason)))
        except ConnectionError:
            pass

    async def wait_reload(self, target: Target, before: object, timeout: float, grace: float = 1.0,
                          doc: str | None = None, leaves: bool | None = None) -> bool:
        """After a navigation was started from document `doc` (on channel `before`): wait until another document is
        back under the page's id on a new channel (True). One that stays: when the page said the navigation keeps
        its document (`leaves` False) or could not tell (None), after `grace` seconds on the same channel, or on a new
        channel as the same document (it reconnected: a 204, a download); when it said the document goes (`leaves`
        True), only at `timeout` (a slow server must not pass for a navigation that went nowhere). False then."""
        async with reporting(f"page {target.page_id} to come back after navigating", timeout):
            return await self._wait_reload(target, before, timeout, grace, doc, leaves)

    async def _wait_reload(self, target: Target, before: object, timeout: float, grace: float, doc: str | None,
                           leaves: bool | None) -> bool:
        inst = target.inst
        deadline = time.monotonic() + timeout
        left_at = time.monotonic() + grace
        while True:
            now = time.monotonic()
            same_doc = doc is not None and inst.doc == doc
            if inst.live and inst.conn is not before and not same_doc:
                return True
            if inst.live and leaves is not True and now > left_at and (inst.conn is before or same_doc):
                return False
            if self.lookup(inst.id) is not inst:
                raise errors.PageGone(f"Page {target.page_id} expired during the navigation. Call page_list.")
            if (went := lost_to(inst)) is not None:
                raise errors.PageGone(
                    f"Page {target.page_id} navigated to {went}, a page without the dbg-bridge client (or another "
                    "origin: then it is a new page in page_list), so it cannot answer. Navigate within the app, or "
                    "ask the human to go back; then call page_list.", code="page_lost")
            if now > deadline:
                if inst.live and same_doc:
                    return False  # the document that navigated is still the page's: the navigation went nowhere
                raise errors.PageTimeout(
                    f"Page {target.page_id} did not come back within {timeout:g} s after navigating (a slow server, a "
                    "page without the client, or a download?). Check the tab, then call page_list."
                )
            wait = min(deadline, left_at if now < left_at and leaves is not True else deadline) - now
            if inst.left_at is not None and not inst.live:  # wake when it would count as lost
                wait = min(wait, max(inst.left_at + LOST_GRACE + 0.05 - now, 0.01))
            try:
                await asyncio.wait_for(inst.changed.wait(), max(wait, 0.01))
            except TimeoutError:
                pass

    # ---- page lifecycle ---------------------------------------------------------------------

    def page_unloading(self, inst: Instance, to: str | None = None) -> None:
        self.registry.unloading(inst, to)
        self.pending.fail_instance(inst.id, lambda w: errors.PageGone(
            f"Page {inst.id} unloaded {_when(w)} (a reload, a navigation or the tab closing). It keeps its "
            f"pageId if it comes back; call page_list, then {_retry(w)}", code="page_unloaded", dispatched=w.sent,
        ))

    def page_reloaded(self, inst: Instance) -> None:
        self.pending.fail_instance(inst.id, lambda w: errors.PageGone(
            f"Page {inst.id} reloaded {_when(w)}; it is back under the same pageId. {_retry(w, True)}",
            code="page_reloaded", dispatched=w.sent,
        ))

    def page_disconnected(self, inst: Instance) -> None:
        self.pending.fail_instance(inst.id, lambda w: errors.PageGone(
            f"Page {inst.id} disconnected {_when(w)} (its tab closed, crashed, or lost the bridge). It "
            f"keeps its pageId for {self.settings.page_ttl:.0f} s; call page_list, then {_retry(w)}",
            code="page_disconnected", dispatched=w.sent,
        ))


#: What a failure after dispatch tells the agent about retrying.
NOT_BLINDLY = ("Do not blindly retry code that is not idempotent (it may apply twice): check the page's state "
               "first (page_snapshot, or a read-only page_exec).")


def _when(w: Waiter) -> str:
    return ("after the command was sent to it (outcome unknown: it may have run, fully or in part)" if w.sent
            else "before the command reached it (nothing ran)")


def _retry(w: Waiter, sentence: bool = False) -> str:
    text = NOT_BLINDLY if w.sent else "Retry: nothing ran."
    return text if sentence else text[0].lower() + text[1:]


def _expire(future: asyncio.Future[Any]) -> None:
    if not future.done():
        future.set_exception(TimeoutError())


async def _changed(inst: Instance, deadline: float) -> None:
    """Wait until `inst` changes state or `deadline` (monotonic) passes."""
    try:
        await asyncio.wait_for(inst.changed.wait(), max(deadline - time.monotonic(), 0.001))
    except TimeoutError:
        pass
