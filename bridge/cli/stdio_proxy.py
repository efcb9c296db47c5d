"""`dbg-bridge mcp`: MCP over stdio for clients that spawn a command, forwarded to the bridge's /mcp.

If no bridge answers on the configured port, one is started as this process's child and stopped with it.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from typing import Any

import anyio
import httpx
import httpx2
from mcp.client.streamable_http import streamable_http_client
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import INTERNAL_ERROR, ErrorData, JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

from bridge.server.security import load_or_create_token
from bridge.settings import Settings

START_TIMEOUT = 20.0


def _say(text: str) -> None:
    print(f"dbg-bridge mcp: {text}", file=sys.stderr, flush=True)


def bridge_answers(base: str) -> bool:
    try:
        r = httpx.get(base + "/bridge/health", timeout=1.0)
        return r.status_code == 200 and r.json().get("name") == "dbg-bridge"
    except (httpx.HTTPError, ValueError):
        return False


def start_bridge(settings: Settings, *extra: str) -> subprocess.Popen[bytes]:
    """Start `dbg-bridge serve` as a child (its output goes to bridge.log in the config dir); `extra`: more flags."""
    settings.config_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    log = open(settings.config_dir / "bridge.log", "ab")  # noqa: SIM115 - handed to the child
    cmd = [sys.executable, "-m", "bridge", "serve", "--host", settings.host, "--port", str(settings.port),
           "--config-dir", str(settings.config_dir), *extra]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + START_TIMEOUT
    while not bridge_answers(settings.base_url()):
        if proc.poll() is not None:
            raise RuntimeError(f"the bridge exited with code {proc.returncode}; see {settings.config_dir / 'bridge.log'}")
        if time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"the bridge did not answer within {START_TIMEOUT:.0f} s; see its log")
        time.sleep(0.1)
    return proc


#: How long a call sent while the bridge is down waits for it to come back; how often that is checked.
BRIDGE_WAIT = 30.0
CHECK_EVERY = 1.0
#: How a restarted bridge (or the SDK for it) answers a request on a session it does not know.
GONE_SESSION = ("Session not found", "Session terminated")


async def _answers(http: httpx2.AsyncClient, base: str) -> bool:
    try:
        r = await http.get(base + "/bridge/health", timeout=1.0)
        return r.status_code == 200
    except httpx2.HTTPError:
        return False


def _request_id(msg: SessionMessage) -> Any:
    m = msg.message
    return m.id if isinstance(m, JSONRPCRequest) else None


async def forward(url: str, token: str | None, base: str | None = None) -> None:
    """Pump MCP messages stdin -> HTTP and HTTP -> stdout until stdin ends, across bridge restarts: a session the
    restarted bridge does not know is initialized again (the client's own `initialize` replayed) and the requests
    still unanswered are sent again; a request sent while the bridge is down waits (bounded) for it."""
    base = base or url.rsplit("/mcp", 1)[0]
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    incoming_send, incoming = anyio.create_memory_object_stream[SessionMessage](256)
    pending: dict[Any, tuple[float, SessionMessage]] = {}
    state: dict[str, Any] = {"init": None, "eof": False}

    async with stdio_server() as (stdio_read, stdio_write), anyio.create_task_group() as outer:
        async def read_stdin() -> None:
            async for msg in stdio_read:
                if isinstance(msg, Exception):
                    continue  # the SDK already answered nothing for unparseable lines; keep going
                await incoming_send.send(msg)
            state["eof"] = True
            await incoming_send.aclose()

        outer.start_soon(read_stdin)
        replay = False
        while not state["eof"]:
            async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=None)) as http:
                try:
                    restart = await _session(url, base, http, incoming, stdio_write, pending, state, replay)
                except Exception as exc:  # the SDK transport failing with the bridge gone (ExceptionGroup)
                    _say(f"bridge connection failed: {type(exc).__name__}")
                    restart = not state["eof"]
                if not restart:
                    break
                _say("the bridge went away; waiting for it to come back")
                deadline = time.monotonic() + BRIDGE_WAIT
                while not await _answers(http, base) and time.monotonic() < deadline:
                    await anyio.sleep(0.2)
                if not await _answers(http, base):
                    for rid, (_, msg) in list(pending.items()):
                        await stdio_write.send(SessionMessage(JSONRPCError(jsonrpc="2.0", id=rid, error=ErrorData(
                            code=INTERNAL_ERROR, message=f"[bridge_down] No bridge answers at {base} (waited "
                            f"{BRIDGE_WAIT:.0f} s). Start it (dbg-bridge serve), then retry."))))
                    pending.clear()
            replay = True
        outer.cancel_scope.cancel()


async def _session(url: str, base: str, http: httpx2.AsyncClient, incoming: Any, stdout: Any,
                   pending: dict[Any, tuple[float, SessionMessage]], state: dict[str, Any], replay: bool) -> bool:
    """One HTTP session with the bridge. Returns True when the bridge went away (start another), False at EOF."""
    restart = anyio.Event()
    replayed_id = f"dbg-reinit-{time.monotonic_ns()}"
    reinit_done = anyio.Event()
    async with streamable_http_client(url, http_client=http) as (http_read, http_write), \
            anyio.create_task_group() as tg:

        async def down() -> None:
            async for msg in http_read:
                if isinstance(msg, Exception):
                    _say(f"bridge connection error: {msg}")
                    restart.set()
                    continue
                m = msg.message
                rid = getattr(m, "id", None)
                if rid == replayed_id:
                    reinit_done.set()
                    continue
                if isinstance(m, JSONRPCError) and rid in pending and m.error.message in GONE_SESSION:
                    restart.set()  # a bridge that restarted: initialize again and send this again
                    continue
                if isinstance(m, (JSONRPCResponse, JSONRPCError)):
                    pending.pop(rid, None)
                await stdout.send(msg)
            restart.set()

        async def up() -> None:
            if replay:
                init = state["init"]
                if init is not None:
                    again = init.message.model_copy(update={"id": replayed_id})
                    await http_write.send(SessionMessage(again))
                    with anyio.move_on_after(10):
                        await reinit_done.wait()
                    if not reinit_done.is_set():
                        restart.set()
                        return
                    await http_write.send(SessionMessage(JSONRPCNotification(
                        jsonrpc="2.0", method="notifications/initialized")))
                for _, msg in list(pending.values()):
                    await http_write.send(msg)
            async for msg in incoming:
                rid = _request_id(msg)
                if rid is not None:
                    pending[rid] = (time.monotonic(), msg)
                    if msg.message.method == "initialize":
                        state["init"] = msg
                await http_write.send(msg)
            tg.cancel_scope.cancel()  # stdin ended: the client is done

        async def watch() -> None:
            # A request to a bridge that died can hang in the transport: check the bridge while any waits.
            while True:
                await anyio.sleep(CHECK_EVERY)
                if pending and min(t for t, _ in pending.values()) < time.monotonic() - CHECK_EVERY \
                        and not await _answers(http, base):
                    restart.set()

        async def stop_on_restart() -> None:
            await restart.wait()
            tg.cancel_scope.cancel()

        tg.start_soon(down)
        tg.start_soon(up)
        tg.start_soon(watch)
        tg.start_soon(stop_on_restart)
    return restart.is_set()


def run_stdio(settings: Settings) -> int:
    base = settings.base_url()
    child: subprocess.Popen[bytes] | None = None
    if not bridge_answers(base):
        _say(f"no bridge answers at {base}; starting one")
        try:
            child = start_bridge(settings)
        except (RuntimeError, OSError) as exc:
            _say(f"could not start the bridge: {exc}. Run `dbg-bridge doctor`.")
            return 1
        _say(f"bridge started at {base} (it stops when this client exits)")
    token = None if settings.no_auth else load_or_create_token(settings)
    try:
        anyio.run(forward, base + "/mcp", token, base)
    except KeyboardInterrupt:
        pass
    finally:
        if child is not None:
            child.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(5)
            if child.poll() is None:
                child.kill()
                child.wait(5)
    return 0
