"""page_list pages through many tabs: `limit` tabs per answer (each with its frames), `nextCursor` to go on."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from bridge.dispatch import Dispatcher
from bridge.errors import BridgeError
from bridge.protocol import FrameInfo, RegisterRequest
from bridge.settings import load_settings
from bridge.registry import tab_slice
from bridge.tools.page import page_list
from tests.support import run_async


def dispatcher_with(tabs: int) -> Dispatcher:
    d = Dispatcher(load_settings({"config_dir": Path(tempfile.mkdtemp())}, env={}))
    frame = FrameInfo(frameId="f0", parent="host", url="http://127.0.0.1:5173/f", title="f", origin="", crossOrigin=False)
    for _ in range(tabs):
        d.registry.register(RegisterRequest(url="http://127.0.0.1:5173/", origin="http://127.0.0.1:5173",
                                            frames=[frame]), "http://127.0.0.1:5173")
    return d


def all_pages(d: Dispatcher, limit: int) -> tuple[list[str], int]:
    seen, cursor, answers = [], None, 0
    while True:
        out = run_async(page_list(d, cursor=cursor, limit=limit))
        answers += 1
        seen += [r["pageId"] for r in out["pages"]]
        cursor = out.get("nextCursor")
        if cursor is None:
            return seen, answers


def test_page_list_gives_every_tab_once_with_its_frames_in_pages_of_limit_tabs():
    d = dispatcher_with(7)
    everything = [r["pageId"] for r in d.registry.page_rows()]
    assert len(everything) == 14
    seen, answers = all_pages(d, 3)
    assert seen == everything and answers == 3
    first = run_async(page_list(d, limit=3))
    assert [r["pageId"].split("/")[1] for r in first["pages"]] == ["host", "f0"] * 3
    assert "nextCursor" not in run_async(page_list(d))  # under the default limit: one answer, no cursor


def test_a_tab_that_goes_away_between_pages_does_not_shift_the_rest():
    d = dispatcher_with(6)
    first = run_async(page_list(d, limit=2))
    gone = first["pages"][0]["pageId"].split("/")[0]
    del d.registry.instances[gone]
    rest = run_async(page_list(d, cursor=first["nextCursor"], limit=10))
    assert len(rest["pages"]) == 8 and "nextCursor" not in rest


def test_a_cursor_page_list_never_gave_is_an_invalid_argument_that_says_what_to_pass():
    d = dispatcher_with(1)
    with pytest.raises(BridgeError) as err:
        run_async(page_list(d, cursor="abc"))
    assert err.value.code == "invalid_argument" and "nextCursor" in str(err.value)


def test_the_cluster_list_is_sliced_by_tabs_too():
    rows = [{"pageId": f"t{i}/{f}", "parent": None if f == "host" else f"t{i}/host"} for i in range(5)
            for f in ("host", "f0")]
    page, more = tab_slice(rows, 2, 2)
    assert [r["pageId"] for r in page] == ["t2/host", "t2/f0", "t3/host", "t3/f0"] and more == 4
    assert tab_slice(rows, 4, 2) == (rows[8:], None)
