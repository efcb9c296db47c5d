"""Fixtures shared by the e2e modules: Python fake pages on their own loop, and the model app in a real tab."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e.pageloop import PageLoop

from tests.support import open_page


E2E = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test under e2e/ carries the `e2e` marker, as pyproject declares it (`-m "not e2e"`: the in-process
    tiers only), whether or not its module says so."""
    for item in items:
        if E2E in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="module")
def pages() -> Iterator[PageLoop]:
    """FakePages (the page protocol spoken from Python) on a background event loop, per module."""
    loop = PageLoop()
    yield loop
    loop.close()


@pytest.fixture
def app(context, dev):
    """e2e/pages/app.html (form, list, dialog, shadow DOM) connected in a fresh tab; `.page_id` is set."""
    return open_page(context, dev.url("/app.html"))
