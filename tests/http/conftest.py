"""The in-process HTTP tier: the bridge app built with `create_app(settings)` in the test's process
(tests/http/bridge_app.py), reached over httpx's ASGITransport as plain async tests on anyio, or, where SSE or a
WebSocket must stream, under a real uvicorn on a free loopback port in this process. No bridge subprocess, no
browser."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    """Session-wide, so a module's app (a module-scoped async fixture) and its tests share one event loop."""
    return "asyncio"
