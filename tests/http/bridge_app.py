"""The bridge app (`create_app(settings)`) in the test's own process: over httpx's ASGITransport for plain HTTP, or
under a real uvicorn on a free loopback port (its own thread and loop) where SSE or a WebSocket must stream."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from bridge.server.app import create_app
from bridge.server.security import load_or_create_token
from bridge.settings import Settings
from tests.support import wait_until

#: The port an app over ASGITransport believes it is bound to: nothing listens there, but its Host and Origin
#: checks name it, as they name the real port of a served bridge.
PORT = 7878


def settings_for(config_dir: Path, port: int = PORT, **fields: Any) -> Settings:
    """The settings a test bridge runs with: its own config dir, and no consent prompts (no human clicks Allow in
    a test; consent has its own tests), as tests/support.py BridgeProcess runs `dbg-bridge serve`."""
    return Settings(config_dir=config_dir, port=port, no_consent=True, **fields)


class InProcess:
    """A bridge app reached over ASGITransport: `.http` (an httpx.AsyncClient on its base URL), `.port`, `.token`."""

    def __init__(self, settings: Settings, http: httpx.AsyncClient, token: str | None) -> None:
        self.settings, self.http, self.token = settings, http, token
        self.port = settings.port
        self.base = settings.base_url()


@asynccontextmanager
async def in_process(config_dir: Path, **fields: Any) -> AsyncIterator[InProcess]:
    """Build the app, run its lifespan (what uvicorn does at start and stop), and talk to it over ASGITransport."""
    settings = settings_for(config_dir, **fields)
    token = None if settings.no_auth else load_or_create_token(settings)
    app = create_app(settings, token)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=settings.base_url(), timeout=15) as http:
            yield InProcess(settings, http, token)


class Served:
    """The app under a real uvicorn in this process, on a free loopback port: `.base`, `.port`, `.token`,
    `.mcp_url`, `.config_dir`, as a BridgeProcess has them (without the process: no log file, no banner)."""

    def __init__(self, config_dir: Path, **fields: Any) -> None:
        self.config_dir = config_dir
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.settings = settings_for(config_dir, port=self.port, **fields)
        self.base = self.settings.base_url()
        self.token = None if self.settings.no_auth else load_or_create_token(self.settings)
        app = create_app(self.settings, self.token)
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", log_config=None,
                                ws_per_message_deflate=False, timeout_graceful_shutdown=2, ws_ping_interval=None)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=lambda: asyncio.run(self.server.serve(sockets=[self.sock])),
                                       name=f"bridge:{self.port}", daemon=True)

    @property
    def mcp_url(self) -> str:
        return self.base + "/mcp"

    def start(self) -> Served:
        self.thread.start()
        wait_until(lambda: self.server.started or not self.thread.is_alive(), 20, what="the served bridge to start")
        if not self.server.started:
            raise RuntimeError(f"the bridge app on port {self.port} did not start (its lifespan failed: see the log)")
        return self

    def stop(self) -> None:
        """Stop serving (open streams get uvicorn's 2 s grace) and wait, bounded, for its thread to end."""
        self.server.should_exit = True
        self.thread.join(15)
        self.sock.close()
        assert not self.thread.is_alive(), f"the bridge app on port {self.port} did not stop within 15 s"
