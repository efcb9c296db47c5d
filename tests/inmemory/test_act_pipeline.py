"""One act pipeline (bridge/tools/page/act.py): page_act and page_exec(command='act') run an act the same way — the
policy and its consent, the upload (consent, then the files), the desktop hand-over of `trusted: true` and the
resume — and answer alike; the bridge's plumbing fields are not the agent's to give."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.inmemory.fake_desktop import FakeDesktop
from tests.inmemory.harness import Bridge, assert_shape, bridge, echo

pytestmark = pytest.mark.anyio

FAKE = "tests.inmemory.fake_desktop:FakeDesktop"
#: The tab's viewport as the Counter window of the fake desktop holds it (no border; its title bar above): the
#: point (55, 25) is the Add button (tests/inmemory/fake_scene.py).
VIEWPORT = {"innerWidth": 400, "innerHeight": 276, "outerWidth": 400, "outerHeight": 300, "screenX": 700,
            "screenY": 100, "devicePixelRatio": 1, "visible": True, "focused": True}
ACT = {"actions": [{"action": "upload", "selector": "#pick", "files": ["notes.txt"]},
                   {"action": "click", "text": "Place order"}], "trusted": True}


def browser_tab(b: Bridge) -> Any:
    """A tab whose window is the fake desktop's Counter window: its act submits a form, hands the click over to the
    desktop (`pending`), and finishes once resumed."""

    async def handler(frame: dict[str, Any]) -> Any:
        params, command = frame.get("params") or {}, frame["command"]
        fake = b.state.desktop.backend
        if command == "viewport":  # the title marker the bridge finds the window by
            window = next(w for w in fake.wins if w.cls == "FakeCounter")
            window.title = f"{params['mark']} Counter" if params.get("mark") else "Counter"
            return {"ok": True, "result": VIEWPORT}
        if command == "act" and params.get("dryRun"):
            return {"ok": True, "result": {"submits": ["button 'Place order' submits /order (post)"]}}
        if command == "act" and params.get("resume"):
            return {"ok": True, "result": {"done": [{"action": "click", "input": "desktop"}],
                                           "changed": ["+ Count: 1"], "trusted": "real input through the desktop"}}
        if command == "act":
            assert params["desktop"] is True and params["uploads"][0][0]["name"] == "notes.txt", params
            return {"ok": True, "result": {"pending": {"token": "t1", "action": "click", "x": 55, "y": 25}}}
        return await echo(frame)

    return handler


async def answer_consents(b: Bridge, shown: list[str]) -> None:
    """The human in the cockpit: allows every consent prompt once, noting what each asked."""
    while True:
        for q in [q for inst in list(b.state.registry.instances) for q in b.state.questions.open_for(inst)]:
            if q.kind == "consent" and b.state.asking.settle_from_cockpit(q, "Allow once"):
                shown.append(q.text.split(" wants to ", 1)[1].split(" ", 1)[0])
        await asyncio.sleep(0.01)


async def one_act(tmp: Path, tool: str) -> tuple[dict[str, Any], list[str], list[tuple[Any, ...]], list[Any]]:
    """(the answer, the consents asked in order, the desktop input sent, the act frames' plumbing) of one act."""
    uploads = tmp / "uploads"
    uploads.mkdir(exist_ok=True)
    (uploads / "notes.txt").write_text("hello notes")
    async with bridge(tmp / tool, desktop_enabled=True, desktop_backend=FAKE, no_consent=False,
                      consent_for=["submit", "upload"], upload_dir=[uploads]) as b:
        await b.ok("desktop_status")  # the fake desktop is up
        conn = b.connect_page(browser_tab(b))
        shown: list[str] = []
        human = asyncio.create_task(answer_consents(b, shown))
        try:
            if tool == "page_act":
                out = await b.ok("page_act", {**ACT, "timeout": 15})
            else:
                out = (await b.ok("page_exec", {"command": "act", "params": ACT, "timeout": 15}))["result"]
                out = {"pageId": "5173/host", **out}
        finally:
            human.cancel()
        fake = b.state.desktop.backend
        assert isinstance(fake, FakeDesktop)
        frames = [{k: v for k, v in f["params"].items() if k in ("dryRun", "desktop", "resume", "checkTimeout")}
                  for f in conn.execs("act")]
        return out, shown, [i for i in fake.input if i[0] == "click"], frames


async def test_page_exec_of_a_trusted_act_answers_exactly_as_page_act_with_the_consents_in_the_same_order(
        tmp_path: Path):
    by_act = await one_act(tmp_path, "page_act")
    by_exec = await one_act(tmp_path, "page_exec")
    answer, consents, clicks, frames = by_act
    assert answer["changed"] == ["+ Count: 1"] and answer["trusted"], answer
    assert consents == ["submit", "hand"], consents  # the policy's (submit) first, then the upload's
    assert clicks == [("click", 755, 149, "left", 1, ())]  # the Add button, through the desktop
    assert [f["dryRun"] for f in frames] == [True, False, False] and frames[1]["desktop"] is True
    assert frames[2]["resume"] == "t1"
    assert by_exec == by_act


async def test_the_bridges_plumbing_is_not_the_agents_to_give(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page()
        for field in ("uploads", "desktop", "resume", "checkTimeout"):
            body = assert_shape(await b.call("page_exec", {"command": "act", "params": {
                "action": "click", "text": "x", field: None if field != "checkTimeout" else 1}}), "invalid_argument")
            assert f"{field} is the bridge's own" in body
        assert "uploads" not in str(await b.client.list_tools())
        assert not conn.execs("act")
