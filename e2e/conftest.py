"""Fixtures shared by the e2e modules: bridge processes started and always stopped, and the model app in a real
tab (Python fake pages, `pages`, come from the root conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support import Bridges, open_page


@pytest.fixture
def bridge_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bridges]:
    """Start bridge processes in a test: `bridge_process(*flags, env=..., config_dir=...)` gives a started
    BridgeProcess; every one is stopped and reaped when the test ends, however it ends."""
    procs = Bridges(tmp_path_factory)
    yield procs
    procs.stop_all()


@pytest.fixture(scope="module")
def module_bridge_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bridges]:
    """The same factory for a module's fixtures: its processes are stopped and reaped when the module ends."""
    procs = Bridges(tmp_path_factory)
    yield procs
    procs.stop_all()


@pytest.fixture
def app(context, dev):
    """e2e/pages/app.html (form, list, dialog, shadow DOM) connected in a fresh tab; `.page_id` is set."""
    return open_page(context, dev.url("/app.html"))
