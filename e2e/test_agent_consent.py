"""Dangerous actions are confirmed by the human in runs too: a run's page_exec asks in the page (the same consent
rule as over /mcp), and `allow` lets a run skip the prompt for a class, said at its start and in the audit."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from e2e.agent_fixtures import model  # noqa: F401 - fixtures
from e2e.runs_api import RunsApi, done, of
from e2e.scripted_model import Req, call
from tests.support import BridgeProcess, Bridges, DevServer, open_page


@pytest.fixture(scope="module")
def consent_bridge(module_bridge_process: Bridges, model) -> BridgeProcess:
    return module_bridge_process(env={"DBG_MODEL_URL": model.url, "DBG_NO_CONSENT": "0"}, name="agent-consent")


@pytest.fixture(scope="module")
def consent_site(consent_bridge) -> Iterator[DevServer]:
    server = DevServer(consent_bridge.client_js())
    yield server
    server.close()


def run_code(req: Req):
    if not req.called("plan"):
        return call("plan", steps=["read the title with code"])
    if not req.called("page_exec"):
        return call("page_exec", code="document.title")
    return call("fail", reason=req.last["content"][:300])


def test_a_runs_page_exec_asks_the_human_and_a_denial_goes_back_to_the_model(model, consent_bridge, consent_site,
                                                                              context):
    page = open_page(context, consent_site.url("/app.html"))
    model.policies["consent"] = run_code
    api = RunsApi(consent_bridge.base, consent_bridge.token)
    try:
        run_id = api.start("Read the title", model="consent")
        card = page.locator("dbg-human [data-question]")
        card.wait_for(timeout=15000)
        assert "run code" in card.inner_text()
        card.locator("button[data-answer=Deny]").click()
        events = api.events(run_id)
    finally:
        api.close()
    result = of(events, "tool_result")[0]
    assert result["tool"] == "page_exec" and result["ok"] is False and result["code"] == "consent_denied"
    assert done(events)["state"] == "failed" and "consent_denied" in done(events)["summary"]
    decisions = [r for r in consent_bridge.audit() if r.get("kind") == "consent"]
    assert decisions[-1]["decision"] == "Deny"


def test_allow_eval_lets_a_run_run_code_without_a_prompt_and_is_audited(model, consent_bridge, consent_site, context):
    page = open_page(context, consent_site.url("/app.html"))
    model.policies["allowed"] = lambda req: (call("verdict", done=True, reason="ok") if req.verifying else
                                             call("finish", summary=req.last["content"]) if req.called("page_exec")
                                             else run_code(req))
    agent = RunsApi(consent_bridge.base, consent_bridge.token)  # the MCP token alone cannot grant it
    refused = agent.http.post("/v1/runs", json={"task": "Read the title", "model": "allowed", "allow": ["eval"]})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "human_only", refused.text
    agent.close()
    api = RunsApi(consent_bridge.base, consent_bridge.token, human=consent_bridge.config_dir)  # the human's terminal
    try:
        _, events = api.run("Read the title", model="allowed", allow=["eval"])
    finally:
        api.close()
    assert of(events, "run_start")[0]["allow"] == ["eval"]
    result = of(events, "tool_result")[0]
    assert result["ok"] is True and "model app" in result["text"]
    assert page.locator("dbg-human [data-question]").count() == 0
    assert done(events)["state"] == "done"
    decisions = [r for r in consent_bridge.audit() if r.get("kind") == "consent"]
    assert decisions[-1]["decision"] == "allowed by run" and decisions[-1]["action"] == "eval"
    assert decisions[-1]["grantedBy"] == "terminal"  # the human at their terminal typed --allow eval
