"""The cockpit at `/`: the human's console. Setup, sessions, live activity (the audit trace over SSE), the inbox
composer, questions and consent prompts answered from here, and the desktop (a live view, and the switch that grants
input on an attached display).

Protection, besides the global Host/Origin rules: the page sets an HttpOnly, SameSite=Strict cookie holding a
random per-process key (named for the port); every action is a POST that needs that cookie and the bridge's own
Origin (or `Sec-Fetch-Site: same-origin`), and so does the event stream. Responses carry a strict CSP; the page
renders everything a page or agent supplied as text.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import secrets
import shlex
import time
from pathlib import Path
from typing import Any

import jinja2
from sse_starlette import EventSourceResponse
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from bridge import __version__, errors
from bridge.cli.command import invocation
from bridge.desktop import served, why_unavailable
from bridge.server.http import HTTPError, error_response, read_json_object
from bridge.human.questions import Question
from bridge.pages.registry import split_page_id
from bridge.state import BridgeState

HERE = Path(__file__).resolve().parent
ASSETS = {"cockpit.js": "text/javascript; charset=utf-8", "desktop.js": "text/javascript; charset=utf-8",
          "runs.js": "text/javascript; charset=utf-8",
          "skills.js": "text/javascript; charset=utf-8",
          "cockpit.css": "text/css; charset=utf-8"}
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'")
HEADERS = {"Content-Security-Policy": CSP, "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
           "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}
#: Seconds between state refreshes when nothing happens (expiry countdowns, last-seen times).
TICK = 2.0
MAX_ACTION_BODY = 64 * 1024
MAX_CONSENT_MINUTES = 240
TOKEN_MARK = "@@DBG_TOKEN@@"

_templates = jinja2.Environment(
    loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True, undefined=jinja2.StrictUndefined,
    trim_blocks=True, lstrip_blocks=True,
)


def new_key() -> str:
    """The per-process cockpit key (what the cookie holds)."""
    return secrets.token_urlsafe(32)


def cookie_name(port: int) -> str:
    return f"dbg_cockpit_{port}"


# ---- the guard ---------------------------------------------------------------------------------------------


def _refused(request: Request) -> Response | None:
    """None if the request comes from this bridge's own cockpit page; an error response otherwise."""
    key: str = request.app.state.cockpit_key
    sent = request.cookies.get(cookie_name(request.app.state.settings.port), "")
    if not hmac.compare_digest(sent.encode(), key.encode()):
        return error_response(403, "no_cockpit_key", "This needs the cockpit's cookie: open the cockpit at / (the "
                                                      "key changes when the bridge restarts, so reload it).",
                              headers=HEADERS)
    origin = request.headers.get("origin")
    fetch_site = request.headers.get("sec-fetch-site")
    # GuardMiddleware already refused any Origin but the bridge's own; here one of the two must be present.
    if origin is None and fetch_site != "same-origin":
        return error_response(403, "bad_origin", "Cockpit actions must come from the cockpit page itself "
                                                 "(Origin or Sec-Fetch-Site: same-origin).", headers=HEADERS)
    return None


async def _body(request: Request) -> dict[str, Any]:
    return await read_json_object(request, MAX_ACTION_BODY)


def _action(handler: Any) -> Any:
    """A cockpit POST: guarded, JSON in and out, errors in the one shape."""

    async def endpoint(request: Request) -> Response:
        refused = _refused(request)
        if refused is not None:
            return refused
        try:
            out = await handler(request.app.state.bridge, await _body(request), request)
        except HTTPError as exc:
            return error_response(exc.status, exc.code, exc.message, headers=HEADERS)
        except errors.BridgeError as exc:
            return error_response(409, exc.code, str(exc).split("] ", 1)[-1], headers=HEADERS)
        return JSONResponse(out, headers=HEADERS)

    return endpoint


def _str(data: dict[str, Any], name: str, limit: int, required: bool = True) -> str | None:
    value = data.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        raise HTTPError(400, "bad_request", f"'{name}' must be a non-empty string of at most {limit} characters.")
    return value


# ---- what the page shows -----------------------------------------------------------------------------------


def snapshot(state: BridgeState) -> dict[str, Any]:
    """Everything the cockpit shows besides the activity feed; never a secret."""
    shared = state.shared
    remote = [] if shared.questions is None else shared.questions.open_questions()
    questions = [_question_row(q) for q in [*(q for q in state.questions.by_id.values() if q.open), *remote]]
    seen = state.audit.agent_seen  # any authenticated MCP request, from the first initialize on
    return {
        "pages": with_tools(state, state.registry.page_rows()) + ([] if shared.replicas is None else
                                                                  shared.replicas.remote_rows()),
        "questions": sorted(questions, key=lambda q: q["created"]),
        "agent": {"seen": seen is not None, "lastSeen": seen, "toolCalls": state.audit.tool_calls},
        "agents": with_leases(state, state.clients.agents.rows()),
        "desktop": desktop_state(state),
    }


def with_leases(state: BridgeState, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each agent row with the tabs it holds a lease on now (bridge/pages/leases.py)."""
    held: dict[str, list[str]] = {}
    for lease in state.leases.rows():
        held.setdefault(lease["agent"], []).append(lease["tab"])
    for row in rows:
        row["holds"] = held.get(f"{row['name']} {row['version']}".strip(), [])
    return rows


def with_tools(state: BridgeState, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each page row with the names of the WebMCP tools its document registered (bridge/pages/webmcp.py), if any."""
    for row in rows:
        tab, _, frame = row["pageId"].partition("/")
        inst = state.registry.instances.get(tab)
        cat = state.webtools.of(inst) if inst is not None else None
        names = [t.name for t in cat.tools if t.frame_id == frame] if cat else []
        if names:
            row["tools"] = names
    return rows


def desktop_state(state: BridgeState) -> dict[str, Any]:
    """The Desktop tab: which display, whether it runs, whether input is allowed (and until when), a recording.
    Reads attributes only: showing the cockpit never starts a desktop."""
    settings = state.settings
    if not served(settings):
        return {"enabled": False}
    desk = state.desktop
    attached = settings.desktop_display != "private"
    session = getattr(desk.backend, "session", None) if desk is not None else None
    rec = desk.recording.status() if desk is not None and desk.recording is not None else None
    if rec is not None:
        rec.pop("seconds")  # changes on every read; the page shows `since` (the state must stay put while idle)
    return {"enabled": True, "mode": "attached" if attached else "private", "running": session is not None,
            "display": settings.desktop_display if attached else getattr(session, "display", None),
            "input": desk.consent_state() if desk is not None else {"granted": not attached, "until": None},
            "control": desk.control_state() if desk is not None else {"holder": "agent"},
            "recording": rec}


def _question_row(q: Question) -> dict[str, Any]:
    return {**q.frame(), "pageId": f"{q.instance_id}/host", "created": round(q.created, 3),
            "asker": getattr(q, "asker", "agent"), "cockpitOnly": q.human_only, "ticketed": q.ticketed}


def client_configs(mcp_url: str, auth: bool, settings: Any) -> list[dict[str, str]]:
    """Ready-to-paste MCP client configs; TOKEN_MARK stands where the token goes (shown only on request). The stdio
    entry names this install's own `dbg-bridge`, which need not be on PATH."""
    stdio = shlex.split(invocation(settings, "mcp"))
    header = {"Authorization": f"Bearer {TOKEN_MARK}"} if auth else {}
    claude = f"claude mcp add --transport http dbg-bridge {mcp_url}"
    if auth:
        claude += f' --header "Authorization: Bearer {TOKEN_MARK}"'
    cursor = {"mcpServers": {"dbg-bridge": {"url": mcp_url, **({"headers": header} if header else {})}}}
    vscode = {"servers": {"dbg-bridge": {"type": "http", "url": mcp_url, **({"headers": header} if header else {})}}}
    return [
        {"id": "claude", "name": "Claude Code", "where": "run in a terminal", "text": claude},
        {"id": "cursor", "name": "Cursor", "where": "~/.cursor/mcp.json", "text": json.dumps(cursor, indent=2)},
        {"id": "vscode", "name": "VS Code", "where": ".vscode/mcp.json", "text": json.dumps(vscode, indent=2)},
        {"id": "stdio", "name": "Clients that start a command", "where": "stdio",
         "text": json.dumps({"command": stdio[0], "args": stdio[1:]}, indent=2)},
    ]


def _model_endpoint(settings: Any) -> str | None:
    """The runs' model as the Setup tab shows it (no credentials)."""
    from bridge.runs.model import shown_url

    if settings.model == "client":
        return "the connected MCP client's own model (sampling)"
    return f"{settings.model} at {shown_url(settings.model_url)}" if settings.model_url else None


async def page(request: Request) -> Response:
    state: BridgeState = request.app.state.bridge
    settings = state.settings
    base = settings.base_url()
    view = snapshot(state)
    html = _templates.get_template("cockpit.html").render(
        base=base, version=__version__, state=view, token_mark=TOKEN_MARK,
        configs=client_configs(base + "/mcp", request.app.state.token is not None, settings),
        auth=request.app.state.token is not None, settings=settings, desktop=served(settings),
        desktop_off=why_unavailable(settings), token_command=invocation(settings, "token"),
        plugin_command=invocation(settings, "plugin"),
        audit_path=None if state.audit.path is None else _tilde(state.audit.path),
        started=request.app.state.started, model_endpoint=_model_endpoint(settings),
    )
    response = HTMLResponse(html, headers=HEADERS)
    response.set_cookie(cookie_name(settings.port), request.app.state.cockpit_key, httponly=True, samesite="strict",
                        path="/")
    return response


def _tilde(path: Path) -> str:
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


async def asset(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in ASSETS:
        return error_response(404, "not_found", f"No cockpit file '{name}'.", headers=HEADERS)
    return FileResponse(HERE / "static" / name, media_type=ASSETS[name],
                        headers={**HEADERS, "Cache-Control": "no-cache"})


async def ping(request: Request) -> Response:
    """204 while the cookie is good (the page uses it to tell 'bridge away' from 'bridge restarted')."""
    return _refused(request) or Response(status_code=204, headers=HEADERS)


# ---- live: state and the audit trace over SSE ----------------------------------------------------------------


def _after(last: str | None, run: str) -> int:
    """The sequence number a reconnecting EventSource saw last (0: replay everything we still hold)."""
    if not last or ":" not in last:
        return 0
    last_run, _, seq = last.partition(":")
    return int(seq) if last_run == run and seq.isascii() and seq.isdigit() and len(seq) <= 18 else 0


async def events(request: Request) -> Response:
    refused = _refused(request)
    if refused is not None:
        return refused
    state: BridgeState = request.app.state.bridge
    audit = state.audit
    queue = audit.listen()
    after = _after(request.headers.get("last-event-id"), audit.run)

    def audit_event(rec: dict[str, Any]) -> dict[str, str]:
        return {"event": "audit", "id": rec["id"], "data": json.dumps(rec, ensure_ascii=False, default=str)}

    async def stream() -> Any:
        try:
            shown = json.dumps(snapshot(state), default=str)
            yield {"event": "state", "data": shown}
            for rec in list(audit.recent):
                if int(rec["id"].rpartition(":")[2]) > after:
                    yield audit_event(rec)
            while True:
                registry_changed = asyncio.ensure_future(state.registry.changed.wait())
                got = asyncio.ensure_future(queue.get())
                try:
                    await asyncio.wait({registry_changed, got}, timeout=TICK, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    registry_changed.cancel()
                    if not got.done():
                        got.cancel()
                records = [got.result()] if got.done() and not got.cancelled() else []
                while not queue.empty():
                    records.append(queue.get_nowait())
                for rec in records:
                    yield audit_event(rec)
                now = json.dumps(snapshot(state), default=str)
                if now != shown:
                    shown = now
                    yield {"event": "state", "data": now}
        finally:
            audit.unlisten(queue)

    return EventSourceResponse(stream(), ping=15, headers=HEADERS)


# ---- the desktop: live view and input consent -------------------------------------------------------------


async def desktop_png(request: Request) -> Response:
    """A PNG of the whole desktop the bridge works on, for the Desktop tab (the cockpit's cookie only)."""
    refused = _refused(request)
    if refused is not None:
        return refused
    state: BridgeState = request.app.state.bridge
    desk = state.desktop
    if desk is None or desk.backend is None:
        return error_response(409, "desktop_not_running", "The desktop starts with the agent's first desktop_* call.",
                              headers=HEADERS)
    try:
        shot = await asyncio.to_thread(desk.call_running, lambda b: b.screenshot(None), 10)
    except Exception as exc:  # noqa: BLE001 - stopped or restarting meanwhile: the page tries again
        return error_response(409, getattr(exc, "code", "desktop_error"), str(exc).split("] ", 1)[-1],
                              headers=HEADERS)
    return Response(shot.png, media_type="image/png", headers=HEADERS)


async def desktop_consent(state: BridgeState, data: dict[str, Any], request: Request) -> dict[str, Any]:
    """Grant the agent input on an attached display for some minutes, or revoke it (a human action)."""
    settings = state.settings
    if not served(settings):
        raise HTTPError(404, "desktop_disabled", f"The desktop tools are not served: {why_unavailable(settings)}.")
    if settings.desktop_display == "private":
        raise HTTPError(409, "private_desktop", "The private desktop needs no consent: input there touches nothing "
                                                "of yours.")
    granted = data.get("granted")
    if not isinstance(granted, bool):
        raise HTTPError(400, "bad_request", "'granted' must be true or false.")
    desk = state.desktop
    if desk is None:
        raise HTTPError(409, "desktop_stopped", "The bridge is shutting down; its desktop is closed.")
    display = settings.desktop_display
    if granted:
        minutes = data.get("minutes", 10)
        if not isinstance(minutes, int) or isinstance(minutes, bool) or not 1 <= minutes <= MAX_CONSENT_MINUTES:
            raise HTTPError(400, "bad_request", f"'minutes' must be a whole number from 1 to {MAX_CONSENT_MINUTES}.")
        desk.grant_consent(True, minutes * 60)
        state.audit.human("cockpit", None, action="desktop input granted", display=display, minutes=minutes)
        state.background.spawn(_consent_expiry(state, desk, desk.consent_until))
    else:
        desk.grant_consent(False)
        state.audit.human("cockpit", None, action="desktop input revoked", display=display)
    return {"input": desk.consent_state()}


async def desktop_control(state: BridgeState, data: dict[str, Any], request: Request) -> dict[str, Any]:
    """Hand an attached desktop back to the agent after the human took it (a human action)."""
    desk = state.desktop
    if not served(state.settings) or desk is None:
        raise HTTPError(404, "desktop_disabled",
                        f"The desktop tools are not served: {why_unavailable(state.settings)}.")
    if data.get("holder") != "agent":
        raise HTTPError(400, "bad_request", "Send {\"holder\": \"agent\"}: your own input takes the desktop by "
                                            "itself.")
    if desk.control.hand_back():
        state.audit.human("cockpit", None, action="desktop handed back", display=state.settings.desktop_display)
    return {"control": desk.control_state()}


async def _consent_expiry(state: BridgeState, desk: Any, until: float | None) -> None:
    """Note in the audit log when a grant runs out (unless it was revoked or renewed first)."""
    if until is None:
        return
    await asyncio.sleep(max(0.0, until - time.time()) + 0.05)
    if desk.consent_until == until and not desk.input_allowed:
        state.audit.human("cockpit", None, action="desktop input expired", display=state.settings.desktop_display)


# ---- actions ------------------------------------------------------------------------------------------------


async def reveal_token(state: BridgeState, data: dict[str, Any], request: Request) -> dict[str, Any]:
    return {"token": request.app.state.token}


async def send_message(state: BridgeState, data: dict[str, Any], request: Request) -> dict[str, Any]:
    text = _str(data, "text", 8000)
    page_id = _str(data, "pageId", 64, required=False)
    if page_id is not None:
        _known_instance(state, page_id)
    assert text is not None
    item = state.inbox.add("message", text, page_id, {"via": "cockpit"}, source="human")
    shared = state.shared.inbox  # a team bridge gives it its id
    return {"id": item.id if shared is None else await shared.settled(item)}


async def answer(state: BridgeState, data: dict[str, Any], request: Request) -> dict[str, Any]:
    qid = _str(data, "questionId", 64)
    q = state.questions.by_id.get(qid or "")
    shared = state.shared.questions
    remote = q is None and shared is not None and shared.get(qid or "") is not None
    if remote and shared is not None:
        q = shared.get(qid or "")  # asked on another replica: that one settles it
    if q is None or not q.open:
        raise HTTPError(409, "not_open", "That question is no longer open (answered in the page, or it expired).")
    value = data.get("answer")
    if q.kind == "confirm" and not isinstance(value, bool):
        raise HTTPError(400, "bad_answer", "A confirm question takes true or false.")
    if q.kind in ("choice", "consent") and value not in q.choices:
        raise HTTPError(400, "bad_answer", f"Answer with one of {q.choices}.")
    if q.kind == "text" and (not isinstance(value, str) or len(value) > 8000):
        raise HTTPError(400, "bad_answer", "A text question takes a string (at most 8000 characters).")
    if q.kind == "pick":
        raise HTTPError(409, "pick_in_page", "A pick question is answered by clicking an element in the page.")
    if remote and shared is not None:
        shared.forward(q.id, value, "cockpit", None)
    elif not state.asking.settle_from_cockpit(q, value):
        raise HTTPError(409, "not_open", "That question was answered meanwhile.")
    return {"questionId": q.id, "answered": True}


async def highlight(state: BridgeState, data: dict[str, Any], request: Request) -> dict[str, Any]:
    page_id = _str(data, "pageId", 64)
    assert page_id is not None
    target = state.dispatcher.resolve(page_id)
    if not target.inst.live:
        raise HTTPError(409, "page_disconnected", f"Page {page_id} is not connected ({target.inst.state}).")
    target, _ = await state.dispatcher.call_page(
        page_id, "highlight", {"selector": ":root", "label": f"dbg-bridge · {page_id}", "durationMs": 2500}, 5)
    state.audit.human("cockpit", target.page_id, action="highlight")
    return {"pageId": target.page_id, "highlighted": True}


async def forget(state: BridgeState, data: dict[str, Any], request: Request) -> dict[str, Any]:
    page_id = _str(data, "pageId", 64)
    assert page_id is not None
    inst = _known_instance(state, page_id)
    if inst.live:
        raise HTTPError(409, "page_live", f"Page {inst.id} is connected; only a disconnected page can be forgotten.")
    if state.registry.instances.get(inst.id) is not inst:
        raise HTTPError(409, "remote_page", f"Page {inst.id} is held by another replica of the team bridge; forget it "
                                            "in that replica's cockpit (its row says which replica).")
    state.registry.forget(inst)
    state.audit.human("cockpit", f"{inst.id}/host", action="forget")
    return {"forgotten": f"{inst.id}/host"}


def _known_instance(state: BridgeState, page_id: str) -> Any:
    parts = split_page_id(page_id)
    inst = state.dispatcher.lookup(parts[0]) if parts else None
    if inst is None:
        raise HTTPError(404, "unknown_page", f"No page '{page_id}' is known. The sessions list shows the pages.")
    return inst


routes = [
    Route("/", page, methods=["GET"]),
    Route("/cockpit/events", events, methods=["GET"]),
    Route("/cockpit/ping", ping, methods=["GET"]),
    Route("/cockpit/token", _action(reveal_token), methods=["POST"]),
    Route("/cockpit/message", _action(send_message), methods=["POST"]),
    Route("/cockpit/answer", _action(answer), methods=["POST"]),
    Route("/cockpit/highlight", _action(highlight), methods=["POST"]),
    Route("/cockpit/forget", _action(forget), methods=["POST"]),
    Route("/cockpit/desktop.png", desktop_png, methods=["GET"]),
    Route("/cockpit/desktop/consent", _action(desktop_consent), methods=["POST"]),
    Route("/cockpit/desktop/control", _action(desktop_control), methods=["POST"]),
    Route("/cockpit/{name}", asset, methods=["GET"]),
]
