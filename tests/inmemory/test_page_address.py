"""pageId may be left out whenever one tab is live (it means that tab's top frame); frames always need their id;
with several tabs the error lists them with their titles. A page tool resolves its pageId once."""

from __future__ import annotations

import pytest

from pathlib import Path

from tests.inmemory.harness import bridge, text_of

pytestmark = pytest.mark.anyio


def frames(n: int, port: int = 5173) -> list[dict]:
    base = f"http://localhost:{port}"
    return [{"frameId": "host", "url": base + "/", "origin": base},
            *({"frameId": f"f{i}", "parent": "host", "url": f"{base}/frame{i}", "origin": base} for i in range(n))]


async def test_one_tab_with_frames_is_the_default_target_and_means_its_top_frame(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page(frames=frames(2))
        out = await b.ok("page_exec", {"command": "ping"})
        assert out["pageId"] == "5173/host"
        assert [f["frameId"] for f in conn.execs()] == ["host"]


async def test_a_frame_is_reached_by_its_id(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page(frames=frames(1))
        out = await b.ok("page_find", {"text": "x", "pageId": "5173/f0"})
        assert out["pageId"] == "5173/f0" and conn.execs("find")[0]["frameId"] == "f0"


async def test_several_tabs_need_a_page_id_and_the_error_lists_them_with_titles(tmp_path: Path):
    async with bridge(tmp_path) as b:
        shop = b.connect_page(title="Shop", frames=frames(1))
        admin = b.connect_page(title="Admin", url="http://localhost:5174/", port=5174)
        body = await b.error("page_snapshot")
        assert body.startswith("[ambiguous_page] 2 tabs are live, so pageId is needed")
        assert "5173/host 'Shop'" in body and "5174/host 'Admin'" in body and "5173/f0" not in body
        assert shop.execs() == [] and admin.execs() == []


async def test_a_frame_ref_from_a_snapshot_with_frames_goes_to_that_frame(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page(frames=frames(1))
        out = await b.ok("page_act", {"action": "click", "ref": "f0:e3@ab"})
        (frame,) = conn.execs("act")
        assert frame["frameId"] == "f0" and frame["params"]["ref"] == "e3@ab" and out["pageId"] == "5173/f0"


async def test_user_notify_from_a_frame_shows_in_its_tab(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page(frames=frames(1))
        out = await b.ok("user_notify", {"message": "done", "pageId": "5173/f0"})
        assert out == {"pageId": "5173/host", "shown": True}
        assert conn.execs("notify")[0]["frameId"] == "host"


async def test_page_exec_resolves_its_page_once(tmp_path: Path):
    async with bridge(tmp_path) as b:
        b.connect_page()
        calls: list[object] = []
        dispatcher = b.state.dispatcher
        real = dispatcher.resolve
        dispatcher.resolve = lambda page_id, *a, **k: calls.append(page_id) or real(page_id, *a, **k)  # type: ignore[method-assign]
        await b.ok("page_exec", {"code": "1+1"})
        assert calls == [None]
