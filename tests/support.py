"""Real parts for tests: a dbg-bridge process, a static dev server on two origins, an MCP client over HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "e2e" / "pages"
CHROMIUM = os.environ.get("DBG_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-renderer-backgrounding",
    "--disable-background-timer-throttling", "--disable-backgrounding-occluded-windows",
]


#: A page's client is up: use with page.wait_for_function(CONNECTED, timeout=...).
CONNECTED = "window.__dbg && window.__dbg.status().state === 'connected'"


def open_page(context: Any, url: str, timeout_ms: float = 10000) -> Any:
    """A new tab on `url`, waited (bounded) until its client is connected; `.page_id` holds its host pageId."""
    page = context.new_page()
    page.goto(url)
    page.wait_for_function(CONNECTED, timeout=timeout_ms)
    page.page_id = page.evaluate("window.__dbg.pageId")
    return page


def stop_group(proc: subprocess.Popen[bytes]) -> None:
    """Stop a child started with start_new_session=True and its whole process group; always reaps it."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)
    else:
        proc.wait()


def start_child(cmd: list[str], ready: Callable[[], bool]) -> subprocess.Popen[bytes]:
    """A Debian server (redis-server, haproxy) as our child, once `ready()` says it answers (bounded wait)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    wait_until(lambda: ready() or proc.poll() is not None, 10, what=f"{cmd[0]} start")
    if proc.poll() is not None:
        raise RuntimeError(f"{cmd[0]} exited with {proc.returncode} (is its Debian package installed? "
                           "./scripts/test.sh installs it)")
    return proc


def stop_child(proc: subprocess.Popen[bytes]) -> None:
    """Terminate a child (kill it if it will not go) and reap it."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def wait_until(predicate: Callable[[], Any], timeout: float = 10.0, interval: float = 0.02, what: str = "condition") -> Any:
    """Poll `predicate` until it returns something truthy; fail after `timeout` seconds (every wait is bounded)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def run_async(coro: Any, timeout: float = 120) -> Any:
    """Run a coroutine to completion on a fresh loop in its own thread (sync Playwright owns this thread's loop)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, asyncio.wait_for(coro, timeout)).result()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: Seconds `dbg-bridge serve` may take to write its ready file.
START_TIMEOUT = 20.0


class BridgeProcess:
    """`dbg-bridge serve` as a child process on a free port, with its own config dir (token file)."""

    def __init__(self, config_dir: Path, *extra: str, port: int = 0, env: dict[str, str] | None = None,
                 command: list[str] | None = None, cwd: Path = ROOT, start_timeout: float = START_TIMEOUT) -> None:
        """`command` replaces `python -m bridge` (e.g. an installed `dbg-bridge` script); `cwd` is where it runs;
        `start_timeout` is how long it may take to come up."""
        self.command = command or [sys.executable, "-m", "bridge"]
        self.cwd = cwd
        self.config_dir = config_dir
        self.extra = extra
        self.port = port
        self.env = env or {}
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = config_dir / "bridge.log"
        self.start_timeout = start_timeout

    def start(self) -> BridgeProcess:
        ready = self.config_dir / f"ready-{time.monotonic_ns()}"
        # Tests run code in pages without a human to click "Allow"; consent has its own tests (consent=True there).
        env = {**os.environ, "DBG_CONFIG_DIR": str(self.config_dir), "PYTHONUNBUFFERED": "1", "DBG_NO_CONSENT": "1",
               **self.env}
        env.pop("DBG_PORT", None)
        cmd = [*self.command, "serve", "--port", str(self.port), "--ready-file", str(ready), *self.extra]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(cmd, cwd=self.cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_until(lambda: ready.exists() and ready.read_text() or self.proc.poll() is not None,
                       self.start_timeout, what="bridge start")
        except AssertionError:
            self.stop()  # never leave a child that did not come up running (and unreaped) behind a failed test
            raise RuntimeError(f"the bridge did not start within {self.start_timeout:g} s; it was stopped. Its "
                               f"log:\n{self.log.read_text()[-3000:]}") from None
        if self.proc.poll() is not None:
            code, self.proc = self.proc.returncode, None
            raise RuntimeError(f"bridge exited with {code}:\n{self.log.read_text()[-3000:]}")
        self.base = ready.read_text().strip()
        self.port = int(self.base.rsplit(":", 1)[1])
        token_file = self.config_dir / "token"
        self.token = token_file.read_text().strip() if token_file.exists() else None
        return self

    def stop(self) -> None:
        """Interrupt it (kill it if it will not go) and reap it; a no-op once stopped."""
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGINT)
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
            self.proc.wait(5)
        self.proc = None

    def restart(self) -> BridgeProcess:
        """Stop and start again on the same port (pages must come back by themselves)."""
        self.stop()
        return self.start()

    @property
    def mcp_url(self) -> str:
        return self.base + "/mcp"

    def audit(self, raw: bool = False) -> Any:
        """The audit log's records (or its raw text), with every record made so far in it: the bridge writes lines
        off the call's path, so it is asked to flush what it holds first (POST /bridge/audit/flush)."""
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        response = httpx2.post(self.base + "/bridge/audit/flush", headers=headers, timeout=10)
        assert response.status_code == 204, response.text
        path = self.config_dir / "audit.jsonl"
        text = path.read_text() if path.exists() else ""
        return text if raw else [json.loads(line) for line in text.splitlines()]

    def client_js(self, **opts: str) -> str:
        query = "&".join(f"{k}={v}" for k, v in opts.items())
        return f"{self.base}/inject/dbg_client.js" + (f"?{query}" if query else "")


class Bridges:
    """A factory of started bridges, each in its own config dir unless one is given, that stops every one it started
    (and reaps it, for a process) when `stop_all` runs: Bridges by default (the e2e fixtures
    `bridge_process` and `module_bridge_process`), or apps served in process (tests/http/bridge_app.py Served)."""

    def __init__(self, tmp: Any, make: Callable[..., Any] | None = None) -> None:
        """`tmp` is pytest's tmp_path_factory (its mktemp names each config dir); `make(config_dir, *extra,
        **options)` builds an unstarted bridge (BridgeProcess if not given)."""
        self.tmp, self.make = tmp, make or BridgeProcess
        self.started: list[Any] = []

    def __call__(self, *extra: str, name: str = "bridge", config_dir: Path | None = None, **options: Any) -> Any:
        """Start one: for a BridgeProcess `dbg-bridge serve *extra` (options: its `env`, `port`, `command`, `cwd`)."""
        bridge = self.make(config_dir or self.tmp.mktemp(name), *extra, **options)
        self.started.append(bridge)
        return bridge.start()

    def stop_all(self) -> None:
        for bridge in reversed(self.started):
            bridge.stop()
        self.started.clear()


class _PageHandler(http.server.SimpleHTTPRequestHandler):
    """Serves e2e/pages with {{CLIENT}} replaced by the bridge's client URL (query `channel=` passes on).

    A page named *.csp.html is served with a Content-Security-Policy that forbids eval; /204 answers 204 No Content
    (a navigation there leaves the page where it is); `slow=MS` holds a page's answer back MS milliseconds (a slow
    server: the old document stays up meanwhile).
    """

    client_url: str = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, directory=str(PAGES), **kwargs)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet test output
        pass

    def do_GET(self) -> None:  # noqa: N802
        path, _, query = self.path.partition("?")
        if path == "/204":
            self.send_response(204)
            self.end_headers()
            return
        if path in ("/events", "/stream"):
            self._stream(path == "/events", dict(p.partition("=")[::2] for p in query.split("&") if p))
            return
        file = PAGES / path.lstrip("/")
        if path.endswith("/") or not path:
            file = file / "index.html"
        if not file.is_file() or file.suffix != ".html":
            return super().do_GET()
        params = dict(p.partition("=")[::2] for p in query.split("&") if p)
        if params.get("slow", "").isdigit():
            time.sleep(min(int(params["slow"]), 10_000) / 1000)  # the server's own delay, not a test's wait
        client = self.client_url + (f"?channel={params['channel']}" if params.get("channel") else "")
        body = file.read_text().replace("{{CLIENT}}", client).replace("{{OTHER}}", params.get("other", ""))
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        if file.name.endswith(".csp.html"):
            bridge = self.client_url.split("/inject/")[0]
            self.send_header("Content-Security-Policy",
                             f"script-src 'self' 'unsafe-inline' {bridge}; connect-src {bridge} "
                             f"ws://127.0.0.1:{bridge.rsplit(':', 1)[1]} http://*.localhost:{bridge.rsplit(':', 1)[1]}")
        self.end_headers()
        self.wfile.write(data)


    def _stream(self, events: bool, params: dict[str, str]) -> None:
        """/events: an event stream (a message every 100 ms); /stream?ms=N: a text body sent a chunk every 100 ms
        for N ms (default 20 s). Both end early when the browser hangs up (or the server closes)."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream" if events else "text/plain; charset=utf-8")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        until = time.monotonic() + (int(params.get("ms", "20000")) if params.get("ms", "").isdigit() else 20000) / 1000
        try:
            while time.monotonic() < until:
                self.wfile.write(b"data: tick\n\n" if events else b"chunk\n")
                self.wfile.flush()
                time.sleep(0.1)  # the server's own pace, not a test's wait
        except OSError:
            pass
        self.close_connection = True


class DevServer:
    """A static 'dev server' for test pages on 127.0.0.1, threaded, in-process."""

    def __init__(self, client_url: str, host: str = "127.0.0.1") -> None:
        handler = type("Handler", (_PageHandler,), {"client_url": client_url})
        self.httpd = http.server.ThreadingHTTPServer((host, 0), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str = "/", host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class McpSession:
    """The official MCP Python client over Streamable HTTP, driven from sync tests via a private event loop."""

    def __init__(self, url: str, token: str | None, mode: str = "auto", *, terminate_on_close: bool = True,
                 **client_options: Any) -> None:
        """`client_options` go to mcp.Client (e.g. elicitation_callback); terminate_on_close=False closes a
        2025-11-25 session without DELETE (its streams just drop, like a client that was killed)."""
        self.url, self.token, self.mode = url, token, mode
        self.terminate_on_close = terminate_on_close
        self.client_options = client_options
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self._stack: contextlib.AsyncExitStack | None = None
        self.client: Client | None = None
        self.run(self._open())

    async def _open(self) -> None:
        self._stack = contextlib.AsyncExitStack()
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        http = await self._stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=60))
        self.client = await self._stack.enter_async_context(
            Client(streamable_http_client(self.url, http_client=http, terminate_on_close=self.terminate_on_close),
                   mode=self.mode, **self.client_options)
        )

    def run(self, coro: Any, timeout: float = 120) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def call(self, name: str, args: dict[str, Any] | None = None, timeout: float = 120) -> Any:
        """Call a tool; returns the CallToolResult (check .is_error, .structured_content, .content)."""
        assert self.client is not None
        return self.run(self.client.call_tool(name, args or {}), timeout)

    def pages(self) -> list[dict[str, Any]]:
        """Every row of page_list, following its nextCursor (a session's bridge can hold more than one page of tabs)."""
        rows: list[dict[str, Any]] = []
        args: dict[str, Any] = {"limit": 1000}
        while True:
            out = self.call("page_list", args)
            assert not out.is_error, out.content
            rows += out.structured_content["pages"]
            if "nextCursor" not in out.structured_content:
                return rows
            args["cursor"] = out.structured_content["nextCursor"]

    def call_many(self, calls: list[tuple[str, dict[str, Any]]], timeout: float = 120) -> list[Any]:
        """Run several tool calls concurrently on this session."""
        assert self.client is not None

        async def all_() -> list[Any]:
            return await asyncio.gather(*(self.client.call_tool(n, a) for n, a in calls))  # type: ignore[union-attr]

        return self.run(all_(), timeout)

    def start(self, name: str, args: dict[str, Any]) -> Any:
        """Start a tool call and return a concurrent.futures.Future for it."""
        assert self.client is not None
        return asyncio.run_coroutine_threadsafe(self.client.call_tool(name, args), self.loop)

    def close(self) -> None:
        if self._stack is not None:
            with contextlib.suppress(Exception):
                self.run(self._stack.aclose(), 20)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


def auth(bridge: Any) -> dict[str, str]:
    """The Authorization header with a bridge's token (a BridgeProcess or an app in process: anything with .token)."""
    return {"Authorization": f"Bearer {bridge.token}"}


def assert_error_shape(response: Any, status: int, code: str | None = None) -> dict[str, str]:
    """`response` (an httpx response) has `status` and the one JSON error shape, {"error": {"code", "message"}}
    (and that code, when given); returns the error."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert list(body) == ["error"] and sorted(body["error"]) == ["code", "message"], body
    assert isinstance(body["error"]["code"], str) and body["error"]["code"]
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    if code is not None:
        assert body["error"]["code"] == code
    return body["error"]


def text_of(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


def ok(result: Any) -> Any:
    """The structured result of a successful call; fails the test with the error text otherwise."""
    assert not result.is_error, text_of(result)
    return result.structured_content


class RedisServer:
    """Debian's redis-server on a free loopback port, no persistence; a child we wait() on (stop/start keep the
    port, so replicas reconnect to the same URL)."""

    def __init__(self, port: int | None = None, password: str | None = None) -> None:
        self.port = port or free_port()
        self.password = password
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(64).startswith((b"+PONG", b"-NOAUTH"))
        except OSError:
            return False

    def start(self) -> RedisServer:
        self.proc = start_child(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             *(["--requirepass", self.password] if self.password else [])], self._answers)
        return self

    def stop(self) -> None:
        if self.proc is not None:
            stop_child(self.proc)
            self.proc = None


class LoadBalancer:
    """Debian's HAProxy on a free loopback port in front of `servers` (host:port), WebSocket included: a server
    that stops answering is taken out within ~0.5 s (TCP checks), and a client keeps to one server while it lives
    (a page's channel is held by the replica it registered with). A child we wait() on."""

    def __init__(self, config_dir: Path, port: int | None = None) -> None:
        self.port = port or free_port()
        self.config = config_dir / "haproxy.cfg"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, servers: list[str]) -> LoadBalancer:
        lines = ["global", "  maxconn 512", "defaults", "  mode http", "  timeout connect 1s", "  timeout client 60s",
                 "  timeout server 60s", "  timeout tunnel 1h", "  option redispatch", "  retries 3",
                 "frontend pages", f"  bind 127.0.0.1:{self.port}", "  default_backend replicas",
                 "backend replicas", "  balance source", "  hash-type consistent",
                 *(f"  server r{i} {s} check inter 200ms fall 1 rise 2" for i, s in enumerate(servers))]
        self.config.write_text("\n".join(lines) + "\n")
        self.proc = start_child(["haproxy", "-db", "-f", str(self.config)], self._listening)
        return self

    def _listening(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc is not None:
            stop_child(self.proc)
            self.proc = None
