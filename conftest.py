"""Shared fixtures: one bridge process, one Chromium, one dev server, one MCP session per test session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import CHROMIUM, CHROMIUM_ARGS, BridgeProcess, DevServer, McpSession


@pytest.fixture(scope="session")
def bridge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BridgeProcess]:
    proc = BridgeProcess(tmp_path_factory.mktemp("bridge")).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def dev(bridge: BridgeProcess) -> Iterator[DevServer]:
    server = DevServer(bridge.client_js())
    yield server
    server.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"{CHROMIUM} not found: install Debian's chromium (./scripts/test.sh does it).")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def context(browser) -> Iterator[object]:
    """A fresh browser context (its own tabs and storage) per test."""
    ctx = browser.new_context()
    yield ctx
    ctx.close()


@pytest.fixture(scope="session")
def mcp(bridge: BridgeProcess) -> Iterator[McpSession]:
    session = McpSession(bridge.mcp_url, bridge.token)
    yield session
    session.close()
