"""page_list pages through many tabs: `limit` tabs per answer (each with its frames), `nextCursor` to go on."""

from __future__ import annotations

import tempfile
import types
from pathlib import Path

import pytest

from bridge.errors import BridgeError
from bridge.pages.protocol import FrameInfo, RegisterRequest
from bridge.settings import load_settings
from bridge.state import BridgeState
from bridge.pages.registry import tab_slice
from bridge.tools.page.tools import page_list
from tests.support import run_async


def state_with(tabs: int) -> BridgeState:
    state = BridgeState(load_settings({"config_dir": Path(tempfile.mkdtemp())}, env={}))
    frame = FrameInfo(frameId="f0", parent="host", url="http://127.0.0.1:5173/f", title="f", origin="", crossOrigin=False)
    for _ in range(tabs):
        state.registry.register(RegisterRequest(url="http://127.0.0.1:5173/", origin="http://127.0.0.1:5173",
                                            frames=[frame]), "http://127.0.0.1:5173")
    return state


def all_pages(state: BridgeState, limit: int) -> tuple[list[str], int]:
    seen, cursor, answers = [], None, 0
    while True:
        out = run_async(page_list(state, cursor=cursor, limit=limit))
        answers += 1
        seen += [r["pageId"] for r in out["pages"]]
        cursor = out.get("nextCursor")
        if cursor is None:
            return seen, answers


def test_page_list_gives_every_tab_once_with_its_frames_in_pages_of_limit_tabs():
    state = state_with(7)
    everything = [r["pageId"] for r in state.registry.page_rows()]
    assert len(everything) == 14
    seen, answers = all_pages(state, 3)
    assert seen == everything and answers == 3
    first = run_async(page_list(state, limit=3))
    assert [r["pageId"].split("/")[1] for r in first["pages"]] == ["host", "f0"] * 3
    assert "nextCursor" not in run_async(page_list(state))  # under the default limit: one answer, no cursor


def test_a_tab_that_goes_away_between_pages_does_not_shift_the_rest():
    state = state_with(6)
    first = run_async(page_list(state, limit=2))
    gone = first["pages"][0]["pageId"].split("/")[0]
    del state.registry.instances[gone]
    rest = run_async(page_list(state, cursor=first["nextCursor"], limit=10))
    assert len(rest["pages"]) == 8 and "nextCursor" not in rest


def test_a_cursor_page_list_never_gave_is_an_invalid_argument_that_says_what_to_pass():
    state = state_with(1)
    with pytest.raises(BridgeError) as err:
        run_async(page_list(state, cursor="abc"))
    assert err.value.code == "invalid_argument" and "nextCursor" in str(err.value)


def test_the_cluster_list_is_sliced_by_tabs_too():
    rows = [{"pageId": f"t{i}/{f}", "parent": None if f == "host" else f"t{i}/host"} for i in range(5)
            for f in ("host", "f0")]
    page, more = tab_slice(rows, 2, 2)
    assert [r["pageId"] for r in page] == ["t2/host", "t2/f0", "t3/host", "t3/f0"] and more == 4
    assert tab_slice(rows, 4, 2) == (rows[8:], None)


def live(state: BridgeState, inst_id: str, seen: float) -> None:
    """Make a registered tab look connected (a channel), last heard from at `seen` (epoch s)."""
    inst = state.registry.instances[inst_id]
    inst.conn = types.SimpleNamespace(kind="ws")  # type: ignore[assignment]
    inst.state, inst.ever_connected, inst.last_seen = "live", True, seen


def test_live_tabs_come_first_most_recently_active_first_and_never_connected_reservations_after_them():
    state = state_with(40)  # a flood of reservations that never connected
    ids = list(state.registry.instances)
    live(state, ids[35], 1000.0)
    live(state, ids[37], 3000.0)
    gone = state.registry.instances[ids[36]]
    gone.ever_connected, gone.last_seen = True, 5000.0  # had a channel, lost it: after the live ones
    first = run_async(page_list(state, limit=3))
    assert [r["pageId"].split("/")[0] for r in first["pages"] if r["parent"] is None] == [ids[37], ids[35], ids[36]]
    rest, cursor = [], first["nextCursor"]
    while cursor:
        out = run_async(page_list(state, cursor=cursor, limit=7))
        rest += [r["pageId"].split("/")[0] for r in out["pages"] if r["parent"] is None]
        cursor = out.get("nextCursor")
    assert rest == [i for n, i in enumerate(ids) if n not in (35, 36, 37)]  # reservations oldest first, each once


def test_a_tab_that_becomes_active_between_pages_is_not_shown_twice_after_the_cursor():
    state = state_with(4)
    ids = list(state.registry.instances)
    for n, i in enumerate(ids):
        live(state, i, 100.0 + n)
    first = run_async(page_list(state, limit=2))
    assert [r["pageId"].split("/")[0] for r in first["pages"] if r["parent"] is None] == [ids[3], ids[2]]
    rest = run_async(page_list(state, cursor=first["nextCursor"], limit=10))
    assert [r["pageId"].split("/")[0] for r in rest["pages"] if r["parent"] is None] == [ids[1], ids[0]]
