"""`dbg-bridge mcp`: MCP over stdio for clients that spawn a command, forwarded to the bridge's /mcp.

If no bridge answers on the configured port, one is started as this process's child and stopped with it.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time

import anyio
import httpx
import httpx2
from mcp.client.streamable_http import streamable_http_client
from mcp.server.stdio import stdio_server

from bridge.security import load_or_create_token
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


def start_bridge(settings: Settings) -> subprocess.Popen[bytes]:
    """Start `dbg-bridge serve` as a child (its output goes to bridge.log in the config dir)."""
    settings.config_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    log = open(settings.config_dir / "bridge.log", "ab")  # noqa: SIM115 - handed to the child
    cmd = [sys.executable, "-m", "bridge", "serve", "--host", settings.host, "--port", str(settings.port),
           "--config-dir", str(settings.config_dir)]
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


async def forward(url: str, token: str | None) -> None:
    """Pump MCP messages stdin -> HTTP and HTTP -> stdout until either side ends."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=None)) as http,
        stdio_server() as (stdio_read, stdio_write),
        streamable_http_client(url, http_client=http) as (http_read, http_write),
        anyio.create_task_group() as tg,
    ):
        async def up() -> None:
            async for msg in stdio_read:
                if isinstance(msg, Exception):
                    continue  # the SDK already answered nothing for unparseable lines; keep going
                await http_write.send(msg)
            tg.cancel_scope.cancel()

        async def down() -> None:
            async for msg in http_read:
                if isinstance(msg, Exception):
                    _say(f"bridge connection error: {msg}")
                    continue
                await stdio_write.send(msg)
            tg.cancel_scope.cancel()

        tg.start_soon(up)
        tg.start_soon(down)


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
        anyio.run(forward, base + "/mcp", token)
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
