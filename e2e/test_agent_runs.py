"""The agent loop end to end: a real bridge process runs tasks against a real page in Chromium, asking a scripted
OpenAI-compatible server over real HTTP (e2e/scripted_model.py: each answer decided by a policy over what the
bridge sent), driven through the runs API with plain HTTP. Every end state, every budget, the nudge, coercion and
refusal, cancel mid-step, dry run, retries, streaming."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from e2e.runs_api import RunsApi, done, of
from e2e.scripted_model import Req, ScriptedModel, call, say, status
from tests.support import BridgeProcess, DevServer, open_page


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModel]:
    server = ScriptedModel()
    yield server
    server.close()


@pytest.fixture(scope="module")
def agent_bridge(tmp_path_factory, model) -> Iterator[BridgeProcess]:
    proc = BridgeProcess(tmp_path_factory.mktemp("agent"), env={"DBG_MODEL_URL": model.url,
                                                                "DBG_MODEL_RETRIES": "2"}).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def api(agent_bridge) -> Iterator[RunsApi]:
    client = RunsApi(agent_bridge.base, agent_bridge.token)
    yield client
    client.close()


@pytest.fixture(scope="module")
def site(agent_bridge) -> Iterator[DevServer]:
    server = DevServer(agent_bridge.client_js())
    yield server
    server.close()


@pytest.fixture
def app_page(context, site):
    return open_page(context, site.url("/app.html"))


def planner(steps: list[str], stop: list[dict] | None = None):
    return call("plan", steps=steps, stop_conditions=stop or [])


def load_more(req: Req):
    """Plan, click 'Load more', finish when Quince shows; the verifier says done when the check passed."""
    if req.verifying:
        return call("verdict", done="Quince" in req.text(), reason="the list shows Quince")
    if not req.called("plan"):
        return planner(["Click Load more", "See Quince in the list"], [{"kind": "text", "value": "Quince"}])
    if not req.called("page_act"):
        return call("page_act", action="click", selector="#more")
    return call("finish", summary="Quince was loaded")


def test_a_run_plans_acts_verifies_and_ends_done_with_a_trace(model, api, app_page, agent_bridge):
    model.policies["done"] = load_more
    run_id, events = api.run("Load more items into the list", model="done")
    end = done(events)
    assert end["state"] == "done", end
    assert [e["to"] for e in of(events, "state_change")] == ["executing", "verifying", "done"]
    plan = of(events, "plan_created")[0]
    assert plan["steps"] == ["Click Load more", "See Quince in the list"]
    assert of(events, "tool_call")[0]["tool"] == "page_act"
    assert of(events, "tool_result")[0]["ok"] is True
    checks = of(events, "verification")[0]["checks"]
    assert checks[0]["met"] is True and checks[0]["kind"] == "text"
    assert app_page.locator("#items li").count() == 4  # the click happened in the real page
    assert end["totals"]["steps"] == 1 and end["totals"]["model_calls"] == 4
    assert end["totals"]["prompt_tokens"] > 0
    # the trace file has the same events, in order, ending with run_done
    trace = [json.loads(line) for line in open(api.get(run_id)["trace"])]
    assert [e["type"] for e in trace] == [e["type"] for e in events]
    assert trace[0]["type"] == "run_start" and trace[-1]["type"] == "run_done"
    # the same audit as /mcp: the page_act call is in audit.jsonl
    audit = agent_bridge.audit()
    assert any(r.get("tool") == "page_act" and r.get("outcome") == "ok" for r in audit)
    # what the model got back from the page was marked as data
    first_result = [m for m in model.requests["done"][2].messages if m["role"] == "tool"][-1]["content"]
    assert first_result.startswith('<data source="page_act">')
