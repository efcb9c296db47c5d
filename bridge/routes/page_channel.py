"""The page channel: register, the SSE stream and the WebSocket down to a page, results and events back up."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError
from sse_starlette import EventSourceResponse
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from bridge import errors
from bridge.pages import protocol
from bridge.server.http import HTTPError, error_response, read_body
from bridge.human.editor import RateLimited
from bridge.pages.protocol import (AckFrame, EventMsg, InstanceId, ProtocolError, RegisterReply, ResultMsg,
                             Secret, VersionMismatch)
from bridge.pages.registry import Instance, OriginMismatch, Registry, TooManyPages
from bridge.state import BridgeState
from bridge.pages.up_messages import handle_up

log = logging.getLogger("bridge.pages")

#: WebSocket close code telling the client its credentials are unknown: register again.
WS_CLOSE_REREGISTER = 4401
#: WebSocket close code: the upgrade came from another origin than the page's register.
WS_CLOSE_ORIGIN = 4403
#: Seconds a WebSocket result waits for its acknowledgement, so a burst of calls shares one ack frame (the page
#: retries an unacknowledged result after 1 s: inject/dbg_client.js RESULT_ACK_WAIT_MS).
ACK_DELAY = 0.1


class SSEConnection:
    """Frames for one page, queued for its EventSource stream."""

    kind = "sse"

    def __init__(self) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.closed = False

    async def send(self, text: str) -> None:
        if self.closed:
            raise ConnectionError("stream closed")
        self.queue.put_nowait(text)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(None)


class WSConnection:
    """Frames for one page, written straight to its WebSocket."""

    kind = "ws"

    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws
        self.closed = False
        #: Results and events taken but not yet acknowledged (sent together ACK_DELAY after the first).
        self.acks: dict[str, None] = {}
        self.event_acks: dict[str, None] = {}

    def ack(self, request_id: str) -> None:
        """Acknowledge a result soon, in one frame with the others that arrive meanwhile."""
        self._soon()
        self.acks[request_id] = None

    def ack_event(self, event_id: str) -> None:
        """Acknowledge an event soon, batched like results."""
        self._soon()
        self.event_acks[event_id] = None

    def _soon(self) -> None:
        if not self.acks and not self.event_acks:
            asyncio.get_running_loop().call_later(ACK_DELAY, self._flush_acks)

    def _flush_acks(self) -> None:
        frame = AckFrame(requestIds=list(self.acks), eventIds=list(self.event_acks))
        self.acks, self.event_acks = {}, {}
        if (frame.requestIds or frame.eventIds) and not self.closed:
            self._acking = asyncio.ensure_future(self._send_acks(frame))  # held: a task nobody holds may be collected

    async def _send_acks(self, frame: AckFrame) -> None:
        try:
            await self.send(protocol.dump(frame))
        except ConnectionError:
            pass  # the page sends them again on its next channel, and they are acknowledged there

    async def send(self, text: str) -> None:
        if self.closed:
            raise ConnectionError("websocket closed")
        try:
            await self.ws.send_text(text)
        except (RuntimeError, OSError, WebSocketDisconnect) as exc:
            self.closed = True
            raise ConnectionError(str(exc)) from exc

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            asyncio.ensure_future(self._close())

    async def _close(self) -> None:
        try:
            await self.ws.close(code=4000, reason="replaced by a newer connection")
        except (RuntimeError, OSError):
            pass


class Credentials(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    instanceId: InstanceId
    secret: Secret


def _state(request: Request | WebSocket) -> BridgeState:
    return request.app.state.bridge


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:  # RecursionError: nested too deeply
        raise HTTPError(400, "bad_json", f"Body is not valid JSON: {exc}.") from None


async def register(request: Request) -> Response:
    state = _state(request)
    try:
        req = protocol.parse_register(await read_body(request, state.settings.max_body))
    except HTTPError as exc:
        return error_response(exc.status, exc.code, exc.message)
    except VersionMismatch as exc:
        return error_response(409, "protocol_mismatch", f"Refused: {exc}.")
    except ProtocolError as exc:
        return error_response(400, "bad_register", f"Malformed register request: {exc}.")
    was = state.registry.instances.get(req.instanceId or "")
    was_live = bool(was and was.live)
    try:
        inst, renamed = await state.shared.pages.register(req, _origin(request))
    except OriginMismatch as exc:
        log.warning("refused a register: %s", exc)
        return error_response(403, "origin_mismatch", f"Refused: {exc}. A page registers for its own origin only.")
    except TooManyPages as exc:
        log.warning("refused a register: %s", exc)
        return error_response(429, "too_many_pages", f"Refused: {exc}.", headers={"Retry-After": "10"})
    except errors.BridgeError as exc:  # cluster_unavailable: the client retries
        return error_response(503, exc.code, str(exc).split("] ", 1)[-1], headers={"Retry-After": "1"})
    if was is inst and was_live:
        state.dispatcher.page_reloaded(inst)
    log.info("page %s registered (%s)%s", inst.id, inst.url, " as a new tab" if renamed else "")
    replicas = None if state.shared.replicas is None else await state.shared.replicas.replica_urls()
    reply = RegisterReply(instanceId=inst.id, secret=inst.secret, ttl=state.settings.page_ttl,
                          heartbeat=state.settings.heartbeat, maxResult=state.settings.max_result, renamed=renamed,
                          replicas=replicas)
    return Response(protocol.dump(reply), media_type="application/json", headers={"Cache-Control": "no-store"})


def _origin(request: Request | WebSocket) -> str:
    """The request's Origin header (the guard already refused foreign and opaque ones); "" when it has none."""
    return (request.headers.get("origin") or "").rstrip("/")


def _authenticate(registry: Registry, instance_id: str | None, secret: str | None) -> Instance | None:
    if not instance_id or not secret:
        return None
    return registry.authenticate(instance_id, secret)


def _same_origin(request: Request | WebSocket, inst: Instance) -> bool:
    """A page's channel and messages come from the origin it registered from. A same-origin GET carries no
    Origin, so none is fine for a page served by the bridge itself (the demo)."""
    if not inst.verified_origin:
        return True
    origin = _origin(request)
    if not origin:
        return request.app.state.policy.own_origin(inst.verified_origin)
    return origin.lower() == inst.verified_origin.lower()


MISMATCH = "This page registered from another origin: the channel was refused. Register again from this origin."


async def events(request: Request) -> Response:
    state = _state(request)
    inst = _authenticate(state.registry, request.query_params.get("i"), request.query_params.get("t"))
    if inst is None:
        return error_response(401, "unknown_page", "Unknown instance or wrong secret: register again.")
    if not _same_origin(request, inst):
        return error_response(403, "origin_mismatch", MISMATCH)
    conn = SSEConnection()
    state.registry.attach(inst, conn)
    state.asking.reshow(inst)
    log.info("page %s connected over SSE", inst.id)

    async def stream():
        try:
            while True:
                text = await conn.queue.get()
                if text is None:
                    return
                yield {"data": text}
        finally:
            conn.closed = True
            if state.registry.detach(inst, conn):
                state.dispatcher.page_disconnected(inst)
                log.info("page %s disconnected (SSE)", inst.id)

    return EventSourceResponse(stream(), ping=state.settings.heartbeat, headers={"Cache-Control": "no-store"})


async def websocket(ws: WebSocket) -> None:
    state = _state(ws)
    inst = _authenticate(state.registry, ws.query_params.get("i"), ws.query_params.get("t"))
    await ws.accept()
    if inst is None:
        await ws.close(code=WS_CLOSE_REREGISTER, reason="unknown instance or wrong secret: register again")
        return
    if not _same_origin(ws, inst):
        await ws.close(code=WS_CLOSE_ORIGIN, reason="origin_mismatch: register again from this origin")
        return
    conn = WSConnection(ws)
    state.registry.attach(inst, conn)
    state.asking.reshow(inst)
    log.info("page %s connected over WebSocket", inst.id)
    try:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            raw = message.get("text")
            if raw is None:  # a binary frame: the protocol is text, but say why it was dropped
                log.warning("page %s sent a binary frame; ignored", inst.id)
                continue
            try:
                msg = protocol.parse_up(raw)
            except ProtocolError as exc:
                log.warning("page %s sent a message that was refused: %s", inst.id, exc)
                continue
            try:
                handle_up(state, inst, msg)
            except (OriginMismatch, errors.BridgeError) as exc:  # RateLimited is a BridgeError
                log.warning("page %s sent a message that was refused: %s", inst.id, exc)
                if not isinstance(msg, EventMsg):
                    continue
            if isinstance(msg, EventMsg) and msg.eventId is not None:
                conn.ack_event(msg.eventId)  # taken, a copy, or refused: the page stops retrying it either way
            elif isinstance(msg, ResultMsg):
                # Acknowledged whether it was taken or not (a duplicate, a call already over): the page stops
                # retrying it either way.
                conn.ack(msg.requestId)
    except WebSocketDisconnect:
        pass
    finally:
        conn.closed = True
        if state.registry.detach(inst, conn):
            state.dispatcher.page_disconnected(inst)
            log.info("page %s disconnected (WebSocket)", inst.id)


async def result(request: Request) -> Response:
    """A page's up message over HTTP: the message fields plus `instanceId` and `secret`, sent as text/plain.

    Any answer but a 5xx acknowledges a result or an event: 204 taken (or an event's copy, ignored), 409 nobody
    waits for it (a duplicate result, a call that is over, an answer to a question no longer open), 4xx malformed
    or unknown; the page retries only when the POST itself failed or got a 5xx."""
    state = _state(request)
    try:
        data = _json(await read_body(request, state.settings.max_body))
    except HTTPError as exc:
        return error_response(exc.status, exc.code, exc.message)
    if not isinstance(data, dict):
        return error_response(400, "bad_message", "Body must be a JSON object.")
    try:
        creds = Credentials.model_validate(data)
    except ValidationError:
        return error_response(401, "unknown_page", "Missing or malformed instanceId/secret.")
    inst = _authenticate(state.registry, creds.instanceId, creds.secret)
    if inst is None:  # another replica's page (an SSE page behind a balancer), or a wrong secret
        return await _forward(state, request, creds, data)
    if not _same_origin(request, inst):
        return error_response(403, "origin_mismatch", MISMATCH)
    try:
        msg = protocol.parse_up(data)
        handled = handle_up(state, inst, msg)
    except ProtocolError as exc:
        return error_response(400, "bad_message", f"Malformed message: {exc}.")
    except OriginMismatch as exc:
        return error_response(403, "origin_mismatch", f"Refused: {exc}.")
    except RateLimited as exc:
        return error_response(429, exc.code, str(exc).split("] ", 1)[-1], headers={"Retry-After": "60"})
    if not handled and isinstance(msg, EventMsg):
        return error_response(409, "not_open", "That question is not open on this page any more (answered "
                              "elsewhere, dismissed or expired): the answer was ignored.")
    if not handled:
        return error_response(409, "stale_result", "No call of this page is waiting for that requestId.")
    return Response(status_code=204)


async def _forward(state: BridgeState, request: Request, creds: Credentials, data: dict[str, Any]) -> Response:
    """A page this replica does not hold POSTed here: another replica's (an SSE page behind a load balancer) gets
    it handed on; anything else is a wrong secret."""
    try:
        replicas = state.shared.replicas
        inst = None if replicas is None else await replicas.authenticate(creds.instanceId, creds.secret)
        if replicas is None or inst is None:
            return error_response(403, "forbidden", "Wrong secret for this instance: the message was ignored.")
        protocol.parse_up(data)
        if not _same_origin(request, inst):
            return error_response(403, "origin_mismatch", MISMATCH)
        await replicas.forward_up(inst, data)
    except ProtocolError as exc:
        return error_response(400, "bad_message", f"Malformed message: {exc}.")
    except errors.BridgeError as exc:  # cluster_unavailable: a 5xx, so the page retries the result
        return error_response(503, exc.code, str(exc).split("] ", 1)[-1])
    return Response(status_code=204)


async def health(request: Request) -> Response:
    from bridge import __version__

    return JSONResponse({"name": "dbg-bridge", "version": __version__, "protocol": protocol.PROTOCOL_VERSION})


routes = [
    Route("/bridge/register", register, methods=["POST"]),
    Route("/bridge/events", events, methods=["GET"]),
    Route("/bridge/result", result, methods=["POST"]),
    Route("/bridge/health", health, methods=["GET"]),
    WebSocketRoute("/bridge/ws", websocket),
]
