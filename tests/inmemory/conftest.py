"""The in-memory tier's tests are plain `async def` functions run by anyio's pytest plugin on asyncio (each module
says `pytestmark = pytest.mark.anyio`; no `run(go())` wrapper); each is bounded by pytest-timeout like any test."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
