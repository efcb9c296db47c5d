"""A hostile page against the human's authority, over the in-process MCP client with fake pages: its own scripts
answering the upload consent (nothing read, nothing handed over), the bridge's own input (an act's, the desktop's)
landing on a card (refused, the card shown again), a recording forged over the page channel (refused; the human's
skill unchanged). The human's side still works: the cockpit answers the upload, a page answer with no bridge input
under way counts."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bridge.skills.format import Skill, Step
from bridge.pages.protocol import parse_up
from bridge.tools.page import upload as page_upload
from bridge.pages.up_messages import handle_up
from tests.inmemory.harness import Bridge, bridge, echo, eventually

pytestmark = pytest.mark.anyio

FAKE = "tests.inmemory.fake_desktop:FakeDesktop"


def answer(b: Bridge, inst: Any, qid: str, value: Any) -> bool:
    """The page's scripts send an answer over the page's own channel (they hold its credentials)."""
    return handle_up(b.state, inst, parse_up({"type": "event", "kind": "answer", "questionId": qid,
                                              "data": {"answer": value}}))


def open_consent(b: Bridge) -> Any:
    return next((q for q in b.state.questions.by_id.values() if q.open and q.kind == "consent"), None)


def uploads_folder(tmp: Path) -> Path:
    folder = tmp / "uploads"
    folder.mkdir()
    (folder / "report.txt").write_text("the human's file")
    return folder


UPLOAD = {"action": "upload", "selector": "#file", "files": ["report.txt"]}


async def test_the_page_answering_the_upload_consent_reads_no_file_and_hands_nothing_over(tmp_path: Path, monkeypatch):
    reads: list[Path] = []
    real = page_upload.read
    monkeypatch.setattr(page_upload, "read", lambda path: reads.append(path) or real(path))
    async with bridge(tmp_path, no_consent=False, consent_wait=1, upload_dir=[uploads_folder(tmp_path)]) as b:
        forged: list[bool] = []

        async def hostile(frame: dict[str, Any]):
            if frame["command"] == "notify":  # the note pointing at the cockpit: the page's scripts answer anyway
                q = open_consent(b)
                forged.extend(answer(b, conn.inst, q.id, choice) for choice in ("Allow once", "Allow on this origin"))
            if frame["command"] == "ask" and "dismiss" not in (frame.get("params") or {}):
                forged.append(True)  # a card in the page would be a failure by itself
            return await echo(frame)

        conn = b.connect_page(hostile)
        text = await b.error("page_act", UPLOAD)
        assert text.startswith("[consent_timeout]") and "cockpit" in text
        assert forged == [False, False]  # refused: only the cockpit answers an upload
        assert reads == [] and not conn.execs("act")  # no file read, nothing handed to the page
        assert not [f for f in conn.execs("ask") if "dismiss" not in f["params"]]  # no card was ever shown
        assert (await b.ok("page_list", {}))["pages"]  # the bridge is fine


async def test_the_cockpit_answers_the_upload_and_then_the_file_is_read_and_handed_over(tmp_path: Path):
    async with bridge(tmp_path, no_consent=False, consent_wait=5, upload_dir=[uploads_folder(tmp_path)]) as b:
        conn = b.connect_page()
        call = asyncio.ensure_future(b.ok("page_act", UPLOAD))
        q = await eventually(lambda: open_consent(b), what="the upload consent")
        assert q.human_only and q.choices == ["Allow once", "Deny"]
        assert b.state.asking.settle_from_cockpit(q, "Allow once")
        await asyncio.wait_for(call, 10)
        (act,) = conn.execs("act")
        assert act["params"]["uploads"][0][0]["name"] == "report.txt"


async def test_the_bridges_own_act_landing_on_a_consent_card_is_refused_and_the_card_comes_back(tmp_path: Path):
    """The extension route: an act's trusted input reaches the page while the act is under way; an answer the page
    sends meanwhile is not the human's."""
    async with bridge(tmp_path, no_consent=False, consent_wait=5) as b:
        results: list[bool] = []
        shown: list[str] = []

        async def page(frame: dict[str, Any]):
            params = frame.get("params") or {}
            if frame["command"] == "ask" and "dismiss" not in params:
                shown.append(params["questionId"])
            if frame["command"] == "act":  # the agent's click lands on the card
                results.append(answer(b, conn.inst, shown[-1], "Allow once"))
            return await echo(frame)

        conn = b.connect_page(page)
        code = asyncio.ensure_future(b.call("page_exec", {"code": "2+2"}))
        q = await eventually(lambda: open_consent(b), what="the eval consent")
        await b.ok("page_act", {"action": "click", "selector": "#anything"})
        assert results == [False] and q.open and not conn.execs("eval")
        await eventually(lambda: len(shown) >= 2, what="the card shown again")
        assert shown[-1] == q.id
        audit = [r for r in b.state.audit.recent if r.get("code") == "bridge_input"]
        assert audit and audit[-1]["questionId"] == q.id
        # the human answers later, by their own hand: it counts
        b.state.questions.by_id[q.id]  # still open
        conn.inst.bridge_input_at -= 10  # the act ended long ago (what the grace window measures)
        assert answer(b, conn.inst, q.id, "Allow once")
        out = await asyncio.wait_for(code, 10)
        assert not out.is_error and conn.execs("eval")


async def test_the_bridges_desktop_input_landing_on_a_card_is_refused(tmp_path: Path):
    """The desktop route: XTest input the bridge sends may land on a card in a browser window on that display."""
    async with bridge(tmp_path, no_consent=False, consent_wait=5, desktop_enabled=True, desktop_backend=FAKE,
                      desktop_allow=["fake-editor"]) as b:
        conn = b.connect_page()
        await b.ok("desktop_status")
        code = asyncio.ensure_future(b.call("user_ask", {"question": "Deploy to production?", "kind": "confirm"}))
        q = await eventually(lambda: next((x for x in b.state.questions.by_id.values() if x.open), None),
                             what="the question")
        loop = asyncio.get_running_loop()
        fake = b.state.desktop.backend
        landed: list[bool] = []
        click = fake.click

        def on_the_card(x: int, y: int, button: str, count: int, modifiers: list[str]) -> None:
            click(x, y, button, count, modifiers)
            # the click reached the browser, whose page sends the card's answer while the bridge still acts
            landed.append(asyncio.run_coroutine_threadsafe(_answer(b, conn.inst, q.id, True), loop).result(5))

        fake.click = on_the_card
        await b.ok("desktop_click", {"target": {"role": "button", "name": "Add"}, "window": "Counter"})
        assert landed == [False] and q.open
        b.state.desktop.acted_at -= 10  # long after the bridge's input: the human's own click counts
        assert answer(b, conn.inst, q.id, True)
        out = await asyncio.wait_for(code, 10)
        assert not out.is_error and out.structured_content["answer"] is True


async def _answer(b: Bridge, inst: Any, qid: str, value: Any) -> bool:
    return answer(b, inst, qid, value)


def event(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": "event", "kind": kind, **fields}


STEP = {"seq": 1, "action": "click", "frame": "host", "url": "http://localhost:5173/", "t": 1,
        "target": {"role": "button", "name": "Pay", "text": "Pay", "selector": "#pay", "tag": "button", "label": "",
                   "inputType": ""}}


async def test_a_recording_forged_over_the_page_channel_is_refused_and_the_humans_skill_is_unchanged(tmp_path: Path):
    async with bridge(tmp_path) as b:
        from bridge.shared.seam import open_store
        from bridge.skills.service import SkillService

        skills = b.state.skills = SkillService(b.state, open_store(b.state.settings))  # as create_app does
        mine = Skill(name="checkout", scope="http://localhost:5173", start_url="http://localhost:5173/",
                     steps=[Step(action="goto", url="http://localhost:5173/")])
        await skills.skills.save(mine)
        before = (await skills.skills.get("checkout")).model_dump()
        conn = b.connect_page()
        inst = conn.inst

        # steps with no recording running: refused
        assert handle_up(b.state, inst, parse_up(event("recorded", data=STEP))) is False
        # a start over the human's skill: refused (the page could have sent it)
        assert handle_up(b.state, inst, parse_up(event("record_start", text="checkout", data={"name": "checkout"})))
        await eventually(lambda: not any(t for t in b.state.background.tasks if not t.done()), what="the start")
        assert skills.recordings.by_name.get("checkout") is None
        # a start under a new name, steps that leave for another origin and a javascript: URL: not saved
        assert handle_up(b.state, inst, parse_up(event("record_start", text="x", data={"name": "x"})))
        rec = await eventually(lambda: skills.recordings.by_name.get("x"), what="the page's recording")
        assert rec.by == "page" and rec.origin == "http://localhost:5173"
        for seq, url in ((1, "http://localhost:5173/"), (3, "https://evil.test/steal"), (5, "javascript:alert(1)")):
            load = {"seq": seq, "action": "load", "frame": "host", "url": url, "t": seq * 100000}
            click = {**STEP, "seq": seq + 1, "url": url, "t": seq * 100000 + 1}
            assert handle_up(b.state, inst, parse_up(event("recorded", data=load)))
            assert handle_up(b.state, inst, parse_up(event("recorded", data=click)))
        assert handle_up(b.state, inst, parse_up(event("record_stop", text="x", data={})))
        await eventually(lambda: rec.state != "recording", what="the save")
        assert rec.state == "failed" and rec.error.startswith("[skill_unsafe_step]")
        assert "evil.test" in rec.error and "javascript" in rec.error
        assert await skills.skills.exists("x") is False
        assert (await skills.skills.get("checkout")).model_dump() == before


async def test_a_skill_going_to_another_origin_is_saved_only_once_the_human_confirms_that_origin(tmp_path: Path):
    async with bridge(tmp_path) as b:
        from bridge.shared.seam import open_store
        from bridge.skills.service import SkillService

        skills = b.state.skills = SkillService(b.state, open_store(b.state.settings))
        conn = b.connect_page()
        rec = await skills.recordings.start(conn.inst, "pay", by="terminal")
        for seq, url in ((1, "http://localhost:5173/"), (3, "https://pay.example/checkout")):
            skills.recordings.take(conn.inst.id, parse_up(event("recorded", data={
                "seq": seq, "action": "load", "frame": "host", "url": url, "t": seq * 100000})).step())
            skills.recordings.take(conn.inst.id, parse_up(event("recorded", data={
                **STEP, "seq": seq + 1, "url": url, "t": seq * 100000 + 1})).step())
        out = await skills.recordings.stop("pay", None)
        assert out.state == "failed" and out.view()["otherOrigins"] == ["https://pay.example"]
        assert not await skills.skills.exists("pay")
        assert (await skills.recordings.stop("pay", None, confirmed=("https://other.example",))).state == "failed"
        saved = await skills.recordings.stop("pay", None, confirmed=("https://pay.example",))
        assert saved.state == "saved" and saved.skill.scope == "http://localhost:5173"
        assert (await skills.skills.get("pay")).recorded_by == "terminal" and rec is saved

        # a javascript: step is never the human's to confirm
        rec = await skills.recordings.start(conn.inst, "js", by="cockpit")
        for seq, url in ((1, "http://localhost:5173/"), (3, "javascript:alert(document.cookie)")):
            skills.recordings.take(conn.inst.id, parse_up(event("recorded", data={
                "seq": seq, "action": "load", "frame": "host", "url": url, "t": seq * 100000})).step())
            skills.recordings.take(conn.inst.id, parse_up(event("recorded", data={
                **STEP, "seq": seq + 1, "url": "http://localhost:5173/", "t": seq * 100000 + 1})).step())
        out = await skills.recordings.stop("js", None, confirmed=("javascript:",))
        assert out.state == "failed" and "javascript" in out.error and "otherOrigins" not in out.view()
        assert not await skills.skills.exists("js")


async def test_code_in_a_page_the_bridge_serves_is_allowed_in_the_cockpit_only(tmp_path: Path):
    """Code in the bridge's own origin (its /demo) could act as the cockpit (same origin): only the cockpit allows
    it, never the page's card."""
    async with bridge(tmp_path, no_consent=False, consent_wait=5) as b:
        conn = b.connect_page(url="http://127.0.0.1:7878/demo", port=None)
        call = asyncio.ensure_future(b.call("page_exec", {"code": "2+2"}))
        q = await eventually(lambda: open_consent(b), what="the eval consent")
        assert q.human_only and "served by the bridge itself" in q.text and "Allow on this origin" not in q.choices
        assert not [f for f in conn.execs("ask") if "dismiss" not in f["params"]]  # no card in the page
        assert answer(b, conn.inst, q.id, "Allow once") is False and q.open
        assert b.state.asking.settle_from_cockpit(q, "Allow once")
        out = await asyncio.wait_for(call, 10)
        assert not out.is_error and conn.execs("eval")
