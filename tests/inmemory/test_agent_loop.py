"""The agent loop's decisions, in memory: a run (bridge/runs/loop.py) drives the real MCP server's tools against a
fake page whose text a test controls, asking a scripted model (a Python policy over what the loop sent). The
takeover-then-done run: the stop condition was written before the human's note, the model says it is done, and
one more verification over the page as it is now decides."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Callable

import pytest

from bridge.runs.budgets import Budgets, RunRequest
from bridge.runs.loop import Loop, Services
from bridge.runs.model import Call, Reply
from bridge.runs.runs import Runs
from bridge.runs.seams import Seams
from tests.inmemory.harness import SHAPES, bridge, eventually

pytestmark = pytest.mark.anyio


class Page:
    """What the fake page shows: its text; `save` (page_exec code) sets it to what `saves` says."""

    def __init__(self, text: str, saves: str) -> None:
        self.text, self.saves = text, saves

    async def handle(self, frame: dict[str, Any]) -> dict[str, Any]:
        params = frame.get("params") or {}
        if frame["command"] == "wait":
            return {"ok": True, "result": {"met": params.get("text", "\0") in self.text, "ms": 0}}
        if frame["command"] == "snapshot":
            return {"ok": True, "result": {**SHAPES["snapshot"], "tree": f'- main\n  - text "{self.text}"'}}
        if frame["command"] == "eval":
            if params.get("code") == "save()":
                self.text = self.saves
            return {"ok": True, "result": self.text}
        return {"ok": True, "result": {**params, **SHAPES.get(frame["command"], {})}}


class Scripted:
    """A model whose every answer is `policy(messages, tool names)`; the requests are kept."""

    name = "scripted"

    def __init__(self, policy: Callable[[list[dict[str, Any]], list[str]], Reply]) -> None:
        self.policy = policy
        self.asked: list[tuple[list[dict[str, Any]], list[str]]] = []

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        names = [t["function"]["name"] for t in tools]
        self.asked.append((json.loads(json.dumps(messages)), names))
        return self.policy(messages, names)


def call(name: str, **args: Any) -> Reply:
    return Reply(calls=[Call(f"c{name}{len(json.dumps(args))}", name, args, json.dumps(args))])


def called(messages: list[dict[str, Any]], name: str) -> int:
    return sum(1 for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []
               if c["function"]["name"] == name)


def text(messages: list[dict[str, Any]]) -> str:
    return "\n".join(str(m.get("content") or "") for m in messages)


async def drive(tmp: Path, page: Page, policy: Any, note: str | None = None, **budgets: Any) -> tuple[Any, Scripted]:
    """One run to its end; a takeover is answered `resume` with `note`."""
    async with bridge(tmp) as b:
        b.connect_page(page.handle)
        model = Scripted(policy)
        runs = Runs(None)
        services = Services(b.state.road, b.state, Seams([]))
        request = RunRequest(task="Save the customer with the name and tier the human gives", model="scripted",
                             budgets=Budgets(**budgets))
        run = runs.start(request, request.budgets.resolved(b.state.settings),
                         lambda r: Loop(r, model, services, takeover_wait=10).drive())
        if note is not None:
            await eventually(lambda: run.takeover is not None, what="the takeover")
            run.takeover.answer("resume", note, "api")
        assert run.task is not None
        await asyncio.wait_for(run.task, 20)
        return run, model


def of(run: Any, kind: str) -> list[dict[str, Any]]:
    return [e for e in run.events if e["type"] == kind]


def stale_stop_condition(rewrite: bool, claim: str = "finish") -> Callable[..., Reply]:
    """Plan with `Saved: ?` as the stop condition, pause for the human, save, finish; after the failed verification
    say it is done (with `finish` and, if `rewrite`, the note's values as the stop condition; or in words)."""

    def policy(messages: list[dict[str, Any]], tools: list[str]) -> Reply:
        if tools == ["verdict"]:  # the verifier: done when the page as it is now shows the note's values
            body = messages[-1]["content"]
            now = body.split("The page now:", 1)[1].split("The agent says:")[0] if "The page now:" in body else ""
            return call("verdict", done="Tk-42 (Silver)" in now, reason="the page shows Saved: Tk-42 (Silver)"
                        if "Tk-42 (Silver)" in now else "the page does not show the saved customer")
        if not called(messages, "plan"):
            return call("plan", steps=["1. Ask the human for the name and tier", "2. Save"],
                        stop_conditions=[{"kind": "text", "value": "Saved: ?"}])
        if not called(messages, "pause_for_human"):
            return call("pause_for_human", reason="which customer?", question="Name and tier?")
        if not called(messages, "page_exec"):
            return call("page_exec", code="save()")
        if not called(messages, "finish"):
            return call("finish", summary="Saved Tk-42 as Silver")
        if claim == "words":
            return Reply(text="The task is done: the page shows Saved: Tk-42 (Silver).")
        conditions = [{"kind": "text", "value": "Saved: Tk-42 (Silver)"}] if rewrite else []
        return call("finish", summary="Saved Tk-42 as Silver", evidence="the page shows Saved: Tk-42 (Silver)",
                    stop_conditions=conditions)

    return policy


@pytest.mark.parametrize("rewrite", [True, False])
async def test_a_takeover_then_done_run_ends_done_when_the_page_shows_the_notes_values(tmp_path: Path, rewrite: bool):
    page = Page("New customer", saves="Saved: Tk-42 (Silver)")
    run, model = await drive(tmp_path, page, stale_stop_condition(rewrite), note="Tk-42, tier Silver")
    assert run.state == "done", run.summary
    assert run.summary == "Saved Tk-42 as Silver"
    verifications = of(run, "verification")
    assert [v["passed"] for v in verifications] == [False, True] if rewrite else [False, False]
    assert verifications[-1]["final"] is True
    assert [e["why"] for e in of(run, "replan")][0].startswith("verification failed: text 'Saved: ?' not met")
    if rewrite:
        assert of(run, "stop_conditions")[0]["conditions"] == [{"kind": "text", "value": "Saved: Tk-42 (Silver)"}]
    verifier = [m for m, tools in model.asked if tools == ["verdict"]][-1][-1]["content"]
    assert "Tk-42, tier Silver" in verifier  # the human's note reaches the verifier
    assert of(run, "plan_created")[0]["steps"] == ["Ask the human for the name and tier", "Save"]  # numbered once


async def test_the_same_run_ends_failed_when_the_page_does_not_show_the_notes_values(tmp_path: Path):
    page = Page("New customer", saves="Saved: Tk-41 (Bronze)")  # the save went wrong
    run, _ = await drive(tmp_path, page, stale_stop_condition(rewrite=True), note="Tk-42, tier Silver")
    assert run.state == "failed"
    assert run.summary.startswith("[not_done] The model said the task is done, but its own stop conditions do "
                                  "not hold"), run.summary
    assert "'Saved: Tk-42 (Silver)'" in run.summary


async def test_a_done_claim_in_words_is_judged_over_what_the_page_shows_now(tmp_path: Path):
    good = Page("New customer", saves="Saved: Tk-42 (Silver)")
    run, _ = await drive(tmp_path, good, stale_stop_condition(False, claim="words"), note="Tk-42, tier Silver")
    assert run.state == "done", run.summary
    bad = Page("New customer", saves="Error: tier missing")
    run, _ = await drive(tmp_path, bad, stale_stop_condition(False, claim="words"), note="Tk-42, tier Silver")
    assert run.state == "failed" and run.summary.startswith("[not_done] The model said the task is done, but a "
                                                            "check of the page as it is now disagrees: the page does "
                                                            "not show"), run.summary


async def test_stop_conditions_given_with_finish_replace_the_plans_before_verifying(tmp_path: Path):
    def policy(messages: list[dict[str, Any]], tools: list[str]) -> Reply:
        if tools == ["verdict"]:
            return call("verdict", done=True, reason="shown")
        if not called(messages, "plan"):
            return call("plan", steps=["Save"], stop_conditions=[{"kind": "text", "value": "Saved: ?"}])
        if not called(messages, "page_exec"):
            return call("page_exec", code="save()")
        return call("finish", summary="saved", stop_conditions=[{"kind": "text", "value": "Saved: Tk-42"}])

    run, _ = await drive(tmp_path, Page("New", saves="Saved: Tk-42 (Silver)"), policy)
    assert run.state == "done", run.summary
    assert not of(run, "replan") and of(run, "verification")[0]["checks"][0]["value"] == "Saved: Tk-42"


async def test_a_model_call_in_flight_is_said_every_heartbeat_with_its_phase(tmp_path: Path, monkeypatch):
    from bridge.runs import loop

    monkeypatch.setattr(loop, "HEARTBEAT", 0.02)
    release = asyncio.Event()

    class Slow(Scripted):
        stream, received = True, 42  # a streaming endpoint: the characters received so far ride on each heartbeat

        async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
            if len(self.asked) == 0:
                await asyncio.wait_for(release.wait(), 10)
            return await super().complete(messages, tools)

    def policy(messages: list[dict[str, Any]], tools: list[str]) -> Reply:
        if tools == ["verdict"]:
            return call("verdict", done=True, reason="ok")
        return call("plan", steps=["look"]) if not called(messages, "plan") else call("finish", summary="looked")

    async with bridge(tmp_path) as b:
        b.connect_page(Page("x", "x").handle)
        model = Slow(policy)
        request = RunRequest(task="Look", model="scripted")
        run = Runs(None).start(request, request.budgets.resolved(b.state.settings),
                               lambda r: Loop(r, model, Services(b.state.road, b.state, Seams([])), 10).drive())
        waits = await eventually(lambda: len(of(run, "model_wait")) >= 3 and of(run, "model_wait"),
                                 what="three heartbeats")
        release.set()
        await asyncio.wait_for(run.task, 20)
    assert run.state == "done"
    assert all(w["n"] == 1 and w["phase"] == "planning" and w["received"] == 42 for w in waits)
    types = [e["type"] for e in run.events]
    assert types.index("model_start") < types.index("model_wait") < types.index("model_call")
    assert not [e for e in run.events[types.index("model_call"):] if e["type"] == "model_wait" and e["n"] == 1]
