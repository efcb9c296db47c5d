"""The agent loop end to end: a real bridge process runs tasks against a real page in Chromium, asking a scripted
OpenAI-compatible server over real HTTP (e2e/scripted_model.py: each answer decided by a policy over what the
bridge sent), driven through the runs API with plain HTTP. Every end state, one budget (the steps; each budget is
tested in memory: tests/inmemory/test_run_budgets.py), the nudge, coercion and refusal, cancel mid-step, dry run,
retries, streaming."""

from __future__ import annotations

import json
import pytest

from e2e.agent_fixtures import agent_bridge, api, app_page, model, site  # noqa: F401 - fixtures
from e2e.runs_api import done, of
from e2e.scripted_model import Req, call, hang_up, status


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


def other_end(req: Req, last):
    """Plan first (no stop conditions), then `last`."""
    if req.verifying:
        return call("verdict", done=True, reason="ok")
    if not req.called("plan"):
        return planner(["do it"])
    return last(req)


@pytest.mark.parametrize(("name", "answer", "state"), [
    ("fail", call("fail", reason="the app has no such page"), "failed"),
    ("clarify", call("ask_clarification", question="Which customer?"), "needs_clarification"),
])
def test_the_model_ends_a_run_failed_or_asking_for_clarification(model, api, app_page, name, answer, state):
    model.policies[name] = lambda req: other_end(req, lambda r: answer)
    _, events = api.run("Order something", model=name)
    end = done(events)
    assert end["state"] == state
    assert ("no such page" in end["summary"]) if state == "failed" else end["summary"] == "Which customer?"


def test_the_same_call_with_no_effect_gets_a_nudge_then_the_run_is_blocked(model, api, app_page):
    model.policies["stuck"] = lambda req: other_end(req, lambda r: call("page_find", text="Apple"))
    _, events = api.run("Find the apple", model="stuck")
    assert len(of(events, "nudge")) == 1 and of(events, "nudge")[0]["times"] == 3
    end = done(events)
    assert end["state"] == "blocked" and end["summary"].startswith("[no_progress]")
    assert end["totals"]["steps"] == 4
    nudged = [m["content"] for m in model.requests["stuck"][-1].messages if m["role"] == "tool"][-1]
    assert "[no_progress]" in nudged  # the model was told, in the third call's result


def test_the_step_budget_warns_at_75_percent_then_fails_the_run(model, api, app_page):
    def policy(req: Req):
        return other_end(req, lambda r: call("page_find", text=f"item {r.called('page_find')}"))

    model.policies["steps"] = policy
    _, events = api.run("Look around", model="steps", budgets={"max_steps": 4})
    warning = of(events, "budget_warning")
    assert [(w["used"], w["limit"]) for w in warning] == [(3, 4)]
    told = [m["content"] for m in model.requests["steps"][-1].messages if m["role"] == "tool"]
    assert sum("[budget_warning] 3 of 4 steps used" in t for t in told) == 1
    end = done(events)
    assert end["state"] == "failed" and "steps" in end["summary"] and end["totals"]["steps"] == 4


def test_unambiguous_arguments_are_coerced_and_said_others_go_back_as_invalid_argument(model, api, app_page,
                                                                                        agent_bridge):
    def policy(req: Req):
        if req.verifying:
            return call("verdict", done=True, reason="ok")
        if not req.called("plan") or req.last["role"] == "user":
            return planner(["click", "try a bad action"])
        if not req.called("page_act"):
            return call("page_act", action="Click", selector="#more", timeout="5")
        if req.called("page_act") == 1:
            return call("page_act", action="smash", selector="#more")
        return call("finish", summary="done")

    model.policies["coerce"] = policy
    _, events = api.run("Click load more", model="coerce")
    first, second = of(events, "tool_result")[:2]
    assert first["ok"] is True
    assert first["coerced"] == ['coerced action "Click" → "click"', 'coerced timeout "5" → 5']
    told = [m["content"] for m in model.requests["coerce"][2].messages if m["role"] == "tool"][-1]
    assert told.startswith('coerced action "Click" → "click"; coerced timeout "5" → 5')
    assert second["ok"] is False and second["code"] == "invalid_argument" and "coerced" not in second
    assert "page_act.action" in second["text"]
    assert "replanning" in [e["to"] for e in of(events, "state_change")]  # a refused call is a failed step
    assert done(events)["state"] == "done"
    coerced = [r for r in agent_bridge.audit() if r.get("kind") == "coerced"]
    assert coerced and coerced[-1]["tool"] == "page_act"


def test_cancel_mid_step_stops_the_tool_call_and_closes_the_trace(model, api, app_page, agent_bridge):
    model.policies["cancel"] = lambda req: other_end(req, lambda r: call("page_wait", text="never", timeout=30))
    run_id = api.start("Wait", model="cancel")
    api.events(run_id, until="tool_call")
    r = api.post(f"/v1/runs/{run_id}/cancel")
    assert r.status_code == 202
    events = api.events(run_id)
    end = done(events)
    assert end["state"] == "cancelled"
    assert api.post(f"/v1/runs/{run_id}/cancel").status_code == 409
    waits = [r for r in agent_bridge.audit() if r.get("tool") == "page_wait"]
    assert waits[-1]["code"] == "cancelled"
    trace = [json.loads(line) for line in open(api.get(run_id)["trace"])]
    assert trace[-1]["type"] == "run_done" and trace[-1]["state"] == "cancelled"


def test_a_dry_run_plans_with_read_only_tools_and_acts_on_nothing(model, api, app_page, agent_bridge):
    def policy(req: Req):
        if not req.called("page_snapshot"):
            return call("page_snapshot")
        if not req.called("page_act"):
            return call("page_act", action="click", selector="#open")
        return planner(["open the dialog", "delete"])

    model.policies["dry"] = policy
    _, events = api.run("Delete all items", model="dry", dryrun=True)
    end = done(events)
    assert end["state"] == "done" and end["summary"].startswith("Dry run")
    assert "page_act" not in model.requests["dry"][0].tools and "page_snapshot" in model.requests["dry"][0].tools
    refused = [m["content"] for m in model.requests["dry"][-1].messages if m["role"] == "tool"]
    assert any(t.startswith("[not_now] page_act cannot run while planning") for t in refused)
    assert not any(r.get("tool") == "page_act" and r.get("args", {}).get("selector") == "#open"
                   for r in agent_bridge.audit())
    assert app_page.locator("#items li").count() == 3


def test_model_errors_are_retried_with_backoff_then_named(model, api, app_page):
    seen = {"n": 0}

    def flaky(req: Req):
        seen["n"] += 1
        return status(503) if seen["n"] <= 2 else load_more(req)

    model.policies["flaky"] = flaky
    _, events = api.run("Load more", model="flaky")
    assert done(events)["state"] == "done"
    assert of(events, "model_call")[0]["retries"] == 2
    model.policies["down"] = lambda req: status(500)
    _, events = api.run("Load more", model="down")
    end = done(events)
    assert end["state"] == "failed" and end["summary"].startswith("[model_unavailable]")
    assert len(model.requests["down"]) == 3  # the first try and 2 retries (model_retries=2)


def test_a_429_waits_its_retry_after_and_a_dropped_connection_is_retried(model, api, app_page):
    seen = {"n": 0}

    def busy(req: Req):
        seen["n"] += 1
        if seen["n"] == 1:
            return status(429, {"Retry-After": "1"})
        return hang_up() if seen["n"] == 2 else load_more(req)

    model.policies["busy"] = busy
    _, events = api.run("Load more", model="busy")
    assert done(events)["state"] == "done"
    assert of(events, "model_call")[0]["retries"] == 2
    first, second = model.requests["busy"][:2]
    assert second.at - first.at >= 0.95  # the server's Retry-After, not the 0.5 s backoff
    model.policies["gone"] = lambda req: hang_up()
    _, events = api.run("Load more", model="gone")
    end = done(events)
    assert end["state"] == "failed" and end["summary"].startswith("[model_unavailable]"), end
    assert "RemoteProtocolError" in end["summary"] and len(model.requests["gone"]) == 3


def test_takeover_is_answered_through_the_api_with_a_note_and_the_page_card_goes(model, api, app_page):
    def policy(req: Req):
        if req.verifying:
            return call("verdict", done=True, reason="ok")
        if not req.called("plan"):
            return planner(["ask the human to log in"])
        if not req.called("pause_for_human"):
            return call("pause_for_human", reason="log in", question="Please log in")
        return call("finish", summary=req.last["content"])

    model.policies["takeover"] = policy
    run_id = api.start("Log in and continue", model="takeover")
    paused = api.events(run_id, until="human")[-1]
    assert paused["event"] == "pause" and paused["takeover"]["reason"] == "log in"
    card = app_page.locator("dbg-human [data-question]")
    card.wait_for(timeout=10000)
    assert "log in" in card.inner_text()
    assert api.get(run_id)["takeover"]["id"] == paused["takeover"]["id"]
    bad = api.post(f"/v1/runs/{run_id}/resume", {"action": "later"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_request"
    r = api.post(f"/v1/runs/{run_id}/resume", {"action": "resume", "note": "logged in as ann"})
    assert r.status_code == 200, r.text
    events = api.events(run_id, after=paused["seq"])
    assert done(events)["state"] == "done"
    assert "logged in as ann" in done(events)["summary"]
    card.wait_for(state="detached", timeout=10000)
    assert api.post(f"/v1/runs/{run_id}/resume", {"action": "resume"}).status_code == 409


def test_takeover_is_answered_from_the_page_with_a_note_and_abort_cancels(model, api, app_page):
    def policy(req: Req):
        if not req.called("plan"):
            return planner(["hand over"])
        return call("pause_for_human", reason="CAPTCHA")

    model.policies["abort"] = policy
    run_id = api.start("Solve it", model="abort")
    api.events(run_id, until="human")
    card = app_page.locator("dbg-human [data-question]")
    card.locator("input[data-note]").fill("solved it by hand", timeout=10000)
    card.locator("button[data-answer=Abort]").click()
    events = api.events(run_id)
    answer = [e for e in of(events, "human") if e["event"] == "answer"][0]
    assert (answer["action"], answer["via"], answer["note"]) == ("abort", "page", "solved it by hand")
    assert done(events)["state"] == "cancelled" and done(events)["summary"].endswith("Note: solved it by hand")


def test_runs_api_bad_input_is_a_4xx_in_the_bridge_error_shape(api, agent_bridge):
    import httpx

    cases = [
        (api.http.post("/v1/runs", content=b"{not json"), 400, "bad_json"),
        (api.http.post("/v1/runs", json={"task": ""}), 400, "invalid_request"),
        (api.http.post("/v1/runs", json={"task": "x", "budgets": {"max_steps": 0}}), 400, "invalid_request"),
        (api.http.post("/v1/runs", json={"task": "x", "bogus": 1}), 400, "invalid_request"),
        (api.http.get("/v1/runs/nope"), 404, "unknown_run"),
        (api.http.get("/v1/runs/nope/events"), 404, "unknown_run"),
        (httpx.post(agent_bridge.base + "/v1/runs", json={"task": "x"}), 401, "unauthorized"),
        (httpx.get(agent_bridge.base + "/v1/runs", headers={**api.headers, "Origin": "http://evil.example"}), 403,
         "bad_origin"),
        (api.http.get("/v1/runs", headers={"Host": "evil.example"}), 421, "bad_host"),
    ]
    for response, code, error in cases:
        assert response.status_code == code, (response.status_code, response.text)
        assert response.json()["error"]["code"] == error
    assert isinstance(api.http.get("/v1/runs").json()["runs"], list)


def test_an_mcp_client_delegates_a_task_with_agent_run_and_hears_each_step(model, agent_bridge, app_page):
    from tests.support import McpSession

    model.policies["delegated"] = load_more
    heard: list[tuple] = []

    async def on_progress(progress, total, message) -> None:
        heard.append((progress, total, message))

    session = McpSession(agent_bridge.mcp_url, agent_bridge.token)
    try:
        result = session.run(session.client.call_tool("agent_run", {"task": "Load more", "model": "delegated"},
                                                      progress_callback=on_progress), 60)
    finally:
        session.close()
    assert not result.is_error, result.content
    out = result.structured_content
    assert out["state"] == "done" and out["plan"]["steps"][0] == "Click Load more" and out["trace"].endswith(".jsonl")
    assert (1, 20, "step 1: page_act") in heard
    # the run's own calls were not made through agent_run recursion: it is not among a run's tools
    assert "agent_run" not in model.requests["delegated"][1].tools


def test_a_streaming_model_endpoint_is_read_chunk_by_chunk(model, bridge_process):
    from e2e.runs_api import RunsApi
    from e2e.scripted_model import Answer
    def policy(req: Req):
        if req.verifying:
            return call("verdict", done=True, reason="listed")
        if not req.called("plan"):
            return Answer(content="Planning now.", calls=[("plan", {"steps": ["list the pages", "finish"]})])
        if not req.called("page_list"):
            return call("page_list", limit="5")
        return call("finish", summary="listed the pages")

    model.policies["streamed"] = policy
    bridge = bridge_process(env={"DBG_MODEL_URL": model.url, "DBG_MODEL_STREAM": "1"})
    api = RunsApi(bridge.base, bridge.token)
    try:
        _, events = api.run("List the pages", model="streamed")
    finally:
        api.close()
    assert all(r.body["stream"] is True for r in model.requests["streamed"])
    assert of(events, "message")[0]["text"] == "Planning now."  # the text came in 5-character pieces
    result = of(events, "tool_result")[0]
    assert result["tool"] == "page_list" and result["coerced"] == ['coerced limit "5" → 5']  # args in 7-char pieces
    assert done(events)["state"] == "done" and done(events)["totals"]["completion_tokens"] == 7 * 4


def stale_condition_then_note(submit: bool):
    """The stop condition written before the human's note (`Saved: ?`), a takeover the human answers with the name,
    the form filled with it (submitted or not), finish; after the failed verification, `finish` with the note's
    values as the stop condition that holds now. The verifier says done whenever it is asked."""

    def policy(req: Req):
        if req.verifying:
            return call("verdict", done=True, reason="the page shows the saved customer")
        if not req.called("plan"):
            return planner(["1. Ask the human who the customer is", "2. Fill and place the order"],
                           [{"kind": "text", "value": "Saved: ?"}])
        if not req.called("pause_for_human"):
            return call("pause_for_human", reason="which customer?", question="Name?")
        if not req.called("page_act"):
            return call("page_act", action="fill", selector="#who", value="Tk-42")
        if submit and req.called("page_act") == 1:
            return call("page_act", action="click", selector="button[type=submit]")
        if not req.called("finish"):
            return call("finish", summary="Ordered for Tk-42")
        return call("finish", summary="Ordered for Tk-42", evidence="the summary reads Tk-42 / s",
                    stop_conditions=[{"kind": "text", "value": "Tk-42 / s"}])

    return policy


@pytest.mark.parametrize(("submit", "state"), [(True, "done"), (False, "failed")])
def test_a_takeover_then_done_run_ends_on_what_the_page_shows(model, api, app_page, submit, state):
    name = f"note-{submit}"
    model.policies[name] = stale_condition_then_note(submit)
    run_id = api.start("Place an order for the customer the human names", model=name)
    paused = api.events(run_id, until="human")[-1]
    r = api.post(f"/v1/runs/{run_id}/resume", {"action": "resume", "note": "the customer is Tk-42"})
    assert r.status_code == 200, r.text
    events = api.events(run_id, after=paused["seq"])
    end = done(events)
    assert end["state"] == state, end
    assert of(events, "replan")[0]["why"].startswith("verification failed: text 'Saved: ?' not met")
    assert of(events, "stop_conditions")[0]["conditions"] == [{"kind": "text", "value": "Tk-42 / s"}]
    final = of(events, "verification")[-1]
    assert final["final"] is True and final["passed"] is submit
    assert app_page.locator("#summary").inner_text() == ("Tk-42 / s" if submit else "")
    if not submit:
        assert end["summary"].startswith("[not_done] The model said the task is done, but its own stop conditions")
