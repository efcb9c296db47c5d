"""Every run budget (bridge/settings.py RUN_BUDGETS) ends a run in memory: the loop (bridge/runs/loop.py) drives
the real MCP server's tools against a fake page, asking the scripted model's policies (e2e/scripted_model.py: an
answer decided by a Python function over what the loop sent) without HTTP. Each budget comes from a run request;
the bridge's setting is the default; a budget out of its bounds is refused."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from bridge.runs.budgets import Budgets, RunRequest
from bridge.runs.loop import Loop, Services
from bridge.runs.model import Call, Reply
from bridge.runs.runs import Run, Runs
from bridge.runs.seams import Seams
from bridge.settings import RUN_BUDGETS, Settings
from e2e.scripted_model import Answer, Req, call
from tests.inmemory.harness import SHAPES, bridge

pytestmark = pytest.mark.anyio


class Scripted:
    """The scripted model's policy, asked in process: each request as the HTTP server would get it."""

    name = "scripted"

    def __init__(self, policy: Callable[[Req], Answer]) -> None:
        self.policy, self.requests = policy, []

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        req = Req({"messages": json.loads(json.dumps(messages)), "tools": tools})
        self.requests.append(req)
        answer = self.policy(req)
        return Reply(text=answer.content or "", calls=[Call(f"c{len(self.requests)}-{i}", name, args, json.dumps(args))
                                                       for i, (name, args) in enumerate(answer.calls)])


async def page(frame: dict[str, Any]) -> dict[str, Any] | None:
    """A page that finds nothing, fails every act and never sees what is waited for."""
    command = frame["command"]
    if command == "act":
        return {"ok": False, "error": {"code": "no_element", "message": "No element matches #missing."}}
    if command == "wait":
        return None  # still waiting when the run's time is up
    return {"ok": True, "result": {**(frame.get("params") or {}), **SHAPES.get(command, {})}}


def other_end(last: Callable[[Req], Answer]) -> Callable[[Req], Answer]:
    """Plan first (no stop conditions), then `last`."""

    def policy(req: Req) -> Answer:
        if req.verifying:
            return call("verdict", done=True, reason="ok")
        if not req.called("plan"):
            return call("plan", steps=["do it"], stop_conditions=[])
        return last(req)

    return policy


def replanning(req: Req) -> Answer:
    if not req.called("plan") or req.last["role"] == "user":
        return call("plan", steps=[f"try {req.called('plan')}"], stop_conditions=[])
    return call("page_act", action="click", selector=f"#missing{req.called('page_act')}")


#: One policy per budget that spends it, and what the run's end says.
SPENDERS: dict[str, tuple[Callable[[Req], Answer], str]] = {
    "steps": (other_end(lambda r: call("page_find", text=f"item {r.called('page_find')}")), "steps"),
    "batches": (lambda r: call("plan", steps=[f"plan {r.called('plan')}"], stop_conditions=[]), "batch budget"),
    "replans": (replanning, "replan(s) used"),
    "model_calls": (other_end(lambda r: call("page_find", text=str(len(r.messages)))), "model calls"),
    "seconds": (other_end(lambda r: call("page_wait", text="never there", timeout=20)), "wall-time budget"),
}
#: What each run asks for (the tightest the test can watch).
ASKED = {"steps": 4, "batches": 2, "replans": 1, "model_calls": 3, "seconds": 0.5}


async def drive(tmp: Path, policy: Callable[[Req], Answer], budgets: dict[str, Any],
                **settings: Any) -> tuple[Run, Scripted]:
    async with bridge(tmp, **settings) as b:
        b.connect_page(page)
        model = Scripted(policy)
        services = Services(b.state.road, b.state, Seams([]))
        request = RunRequest(task="Spend a budget", model="scripted", budgets=Budgets(**budgets))
        run = Runs(None).start(request, request.budgets.resolved(b.state.settings),
                               lambda r: Loop(r, model, services, takeover_wait=5).drive())
        assert run.task is not None
        await asyncio.wait_for(run.task, 20)
        return run, model


def of(run: Run, kind: str) -> list[dict[str, Any]]:
    return [e for e in run.events if e["type"] == kind]


def test_every_budget_has_a_spender():
    assert set(SPENDERS) == set(ASKED) == {b.name for b in RUN_BUDGETS}


@pytest.mark.parametrize("name", [b.name for b in RUN_BUDGETS])
async def test_each_budget_asked_for_ends_the_run_failed_when_spent(tmp_path: Path, name: str):
    policy, says = SPENDERS[name]
    run, model = await drive(tmp_path, policy, {f"max_{name}": ASKED[name]})
    end = of(run, "run_done")[-1]
    assert end["state"] == "failed" and says in end["summary"], end
    assert of(run, "run_start")[0]["limits"][name] == ASKED[name]
    if name == "steps":
        assert [(w["used"], w["limit"]) for w in of(run, "budget_warning")] == [(3, 4)]  # the warning at 75 %
        assert end["totals"]["steps"] == 4
    elif name == "batches":
        assert len(of(run, "plan_created")) == 2
    elif name == "replans":
        assert [e["to"] for e in of(run, "state_change")].count("replanning") == 1
        replan_prompt = model.requests[2].last["content"]
        assert replan_prompt.startswith("That failed: step 1 (page_act) failed:") and "The plan was:" in replan_prompt
    elif name == "model_calls":
        assert len(model.requests) == 3
    else:
        assert end["seconds"] < 5  # the page_wait in flight (20 s) was cancelled


@pytest.mark.parametrize("name", ["steps", "model_calls"])
async def test_the_bridges_setting_is_a_runs_budget_when_the_request_names_none(tmp_path: Path, name: str):
    policy, says = SPENDERS[name]
    run, _ = await drive(tmp_path, policy, {}, **{f"run_max_{name}": 3})
    end = of(run, "run_done")[-1]
    assert end["state"] == "failed" and says in end["summary"] and of(run, "run_start")[0]["limits"][name] == 3


@pytest.mark.parametrize("budget", RUN_BUDGETS, ids=lambda b: b.name)
def test_a_budget_out_of_its_bounds_is_refused_as_a_setting_and_in_a_request(budget):
    for wrong in (budget.low - 1, budget.high + 1):
        with pytest.raises(ValidationError):
            Budgets(**{budget.request: wrong})
        with pytest.raises(ValidationError):
            Settings(**{budget.setting: wrong})
    assert Budgets(**{budget.request: budget.high}).resolved(Settings()).model_dump()[budget.name] == budget.high
    assert getattr(Settings(), budget.setting) == budget.default
