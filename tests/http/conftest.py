"""The in-process HTTP tier: the bridge app built with `create_app(settings)` in the test's process
(tests/http/bridge_app.py), reached over httpx's ASGITransport as plain async tests on anyio, or, where SSE or a
WebSocket must stream, served by a real uvicorn on a free loopback port in this process. No bridge subprocess, no
browser. `bridge` and `mcp` here are a module's own served app and MCP session (the root conftest.py's are a
process for the whole session)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.http.bridge_app import Served
from tests.support import Bridges, McpSession


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    """Session-wide, so a module's app (a module-scoped async fixture) and its tests share one event loop."""
    return "asyncio"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bridges]:
    """Serve bridge apps in this process: `served(name=..., **settings)` gives a started Served; every one stops
    when the module ends."""
    apps = Bridges(tmp_path_factory, Served)
    yield apps
    apps.stop_all()


@pytest.fixture(scope="module")
def bridge(served: Bridges) -> Served:
    return served(name="bridge")


@pytest.fixture(scope="module")
def mcp(bridge: Served) -> Iterator[McpSession]:
    session = McpSession(bridge.mcp_url, bridge.token)
    yield session
    session.close()
