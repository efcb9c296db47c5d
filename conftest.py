"""Shared fixtures: one bridge process, one Chromium, one dev server, one MCP session per test session; fake pages
per module; and the order of the tiers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.pageloop import PageLoop
from tests.support import CHROMIUM, CHROMIUM_ARGS, BridgeProcess, DevServer, McpSession


ROOT = Path(__file__).resolve().parent
#: The tiers in the order they run, each with the marker its tests carry (pyproject declares them; `-m "not e2e and
#: not desktop"` selects the in-process tiers): the in-process ones first (unit; in-memory and HTTP, plain async tests
#: on anyio), then the ones that drive real processes (the desktop, e2e). Sync Playwright keeps its event loop running
#: on the main thread from the first test that opens Chromium to the end of the session, and anyio cannot start a
#: loop beside it, so an in-memory test collected after a desktop test (tests/desktop sorts first) failed "Cannot run
#: the event loop while another loop is running".
TIERS = (("tests/unit", "unit"), ("tests/inmemory", "inmemory"), ("tests/http", "http"), ("tests/desktop", "desktop"),
         ("e2e", "e2e"))


def _tier(item: pytest.Item) -> int:
    path = Path(str(item.path)).resolve()
    rel = path.relative_to(ROOT).as_posix() if ROOT in path.parents else ""
    return next((i for i, (tier, _) in enumerate(TIERS) if rel.startswith(tier + "/")), len(TIERS))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        tier = _tier(item)
        if tier < len(TIERS):
            item.add_marker(TIERS[tier][1])  # every test carries its tier's marker, whether or not its module says so
    items.sort(key=_tier)  # stable: each tier keeps its own order


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


@pytest.fixture(scope="module")
def pages() -> Iterator[PageLoop]:
    """FakePages (the page protocol spoken from Python) on a background event loop, per module."""
    with PageLoop() as loop:
        yield loop
