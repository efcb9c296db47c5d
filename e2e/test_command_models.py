"""The real client answers every page command with what bridge/pages/commands.py says it does: each result validates
against its command's result model and carries no field the model does not name (the JSDoc the client is typed
with is generated from the same models, so this is the runtime half of that mirror)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, RootModel

from bridge.pages.protocol import COMMAND_TABLE
from tests.support import ok, wait_until


def unnamed(value: Any, where: str = "") -> list[str]:
    """The fields of a validated result (nested models too) that its model does not name."""
    if isinstance(value, RootModel):
        return unnamed(value.root, where)
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in unnamed(v, f"{where}[{i}]")]
    if not isinstance(value, BaseModel):
        return []
    out = [f"{where}.{k}" for k in (value.model_extra or {})]
    for name in type(value).model_fields:
        out += unnamed(getattr(value, name), f"{where}.{name}")
    return out


def check(command: str, result: Any) -> BaseModel:
    model = COMMAND_TABLE[command].result.model_validate(result)
    assert unnamed(model) == [], f"{command} answered fields its result model does not name: {unnamed(model)}"
    return model


def run(mcp: Any, page_id: str, command: str, params: dict[str, Any] | None = None) -> Any:
    return ok(mcp.call("page_exec", {"pageId": page_id, "command": command, "params": params or {}}))["result"]


def test_every_command_answers_what_its_result_model_names(app, mcp):
    pid = app.page_id
    app.evaluate("console.warn('careful', 1); fetch('/app.html')")
    seen: dict[str, BaseModel] = {}
    seen["ping"] = check("ping", run(mcp, pid, "ping"))
    seen["location"] = check("location", run(mcp, pid, "location"))
    seen["frames"] = check("frames", run(mcp, pid, "frames"))
    seen["eval"] = check("eval", run(mcp, pid, "eval", {"code": "({a: [1, 2], b: document.title})"}))
    snap = run(mcp, pid, "snapshot", {"interactiveOnly": True})
    seen["snapshot"] = check("snapshot", snap)
    # a whole tree (the page keeps it, the bridge reads it in slices: page_snapshot's plumbing, not page_exec's)
    whole = ok(mcp.call("page_snapshot", {"pageId": pid, "toFile": True}))
    check("snapshot", {k: v for k, v in whole.items() if k not in ("pageId", "file", "resource", "chars")})
    found = run(mcp, pid, "find", {"role": "button"})
    seen["find"] = check("find", found)
    ref = found["matches"][0]["ref"]
    check("act", run(mcp, pid, "act", {"action": "click", "selector": "#open", "dryRun": True}))
    seen["act"] = check("act", run(mcp, pid, "act", {"action": "fill", "selector": "#who", "value": "Ada"}))
    seen["console"] = check("console", run(mcp, pid, "console", {"stack": True}))
    seen["wait"] = check("wait", run(mcp, pid, "wait", {"selector": "#who", "timeout": 5}))
    wait_until(lambda: run(mcp, pid, "network", {})["requests"], what="the fetch to be listed")
    net = check("network", run(mcp, pid, "network", {"resources": True}))
    seen["network"] = check("network", run(mcp, pid, "network", {"id": net.requests[0].id}))
    seen["source"] = check("source", run(mcp, pid, "source", {"selector": "#who"}))
    seen["highlight"] = check("highlight", run(mcp, pid, "highlight", {"refs": [ref], "label": "x"}))
    check("highlight", run(mcp, pid, "highlight", {"clear": True}))
    seen["ask"] = check("ask", run(mcp, pid, "ask", {"questionId": "q-models", "kind": "confirm", "text": "ok?"}))
    check("ask", run(mcp, pid, "ask", {"dismiss": "q-models"}))
    seen["notify"] = check("notify", run(mcp, pid, "notify", {"message": "hello", "durationMs": 1000}))
    assert check("selection", run(mcp, pid, "selection")).text == ""
    app.evaluate("(() => { const f = document.getElementById('who'); f.focus(); f.setSelectionRange(1, 3); })()")
    seen["selection"] = check("selection", run(mcp, pid, "selection"))
    assert seen["selection"].text == "da" and "<input#who" in seen["selection"].element
    app.evaluate("(() => { document.activeElement.blur(); const r = document.createRange(); "
                 "r.selectNodeContents(document.getElementById('status')); getSelection().removeAllRanges(); "
                 "getSelection().addRange(r); })()")
    picked = check("selection", run(mcp, pid, "selection"))
    assert picked.text == app.evaluate("document.getElementById('status').textContent") and picked.ref
    seen["viewport"] = check("viewport", run(mcp, pid, "viewport", {"mark": "dbg-test"}))
    assert app.title().startswith("dbg-test ")
    check("viewport", run(mcp, pid, "viewport"))
    assert not app.title().startswith("dbg-test")
    # record is not an agent's to call (page_exec refuses it); the page's own answer is checked against its model
    record = "(on) => window.__dbg.commands.record({on, name: 'models'}, {role: 'host', frameId: 'host'})"
    seen["record"] = check("record", app.evaluate(record, True))
    assert seen["record"].recording is True and check("record", app.evaluate(record, False)).recording is False
    refused = mcp.call("page_exec", {"pageId": pid, "command": "record", "params": {"on": True}})
    assert refused.is_error
    seen["vitals"] = check("vitals", run(mcp, pid, "vitals", {}))
    # problems and maps are the bridge's plumbing (page_exec does not offer them): the page's own answers
    plumbing = "([name, params]) => window.__dbg.commands[name](params, {role: 'host', frameId: 'host'})"
    app.evaluate("console.error(new Error('models'))")
    seen["problems"] = check("problems", app.evaluate(plumbing, ["problems", {"console": 0, "net": 0}]))
    assert seen["problems"].errors
    seen["maps"] = check("maps", app.evaluate(plumbing, ["maps", {"urls": [app.url]}]))
    seen["navigate"] = check("navigate", run(mcp, pid, "navigate", {"action": "reload"}))
    # screenshot needs the extension: e2e/test_extension.py checks its result against the same model; tools and
    # tool_call need a page with WebMCP tools (and page_exec does not reach them): e2e/test_webmcp.py checks them;
    # open needs the extension too (page_open's): e2e/test_extension.py checks it
    assert set(seen) == set(COMMAND_TABLE) - {"screenshot", "tools", "tool_call", "open"}
    assert seen["console"].entries and seen["find"].total >= 1 and seen["act"].done


@pytest.mark.parametrize("command, params, field", [
    ("snapshot", {"depth": 99}, "depth"),
    ("find", {"text": "x", "limit": 0}, "limit"),
    ("act", {"action": "explode", "selector": "#who"}, "action"),
    ("act", {"actions": [{"action": "click", "selektor": "#who"}]}, "selektor"),
    ("wait", {"selector": "#who", "timeout": 500}, "timeout"),
    ("highlight", {"refs": "e1"}, "refs"),
    ("notify", {"message": "x", "level": "loud"}, "level"),
])
def test_params_that_do_not_fit_their_model_never_reach_the_page(app, mcp, command, params, field):
    out = mcp.call("page_exec", {"pageId": app.page_id, "command": command, "params": params})
    text = out.content[0].text
    assert out.is_error and text.startswith("[bad_arguments]") and field in text, text
    assert app.evaluate("document.getElementById('who').value") == ""  # nothing ran
