"""`--save-skill`: a done run's successful steps as a skill; a run not done, or one whose steps named elements only
by refs, is refused saying why."""

from __future__ import annotations

import pytest

from bridge.skills.from_run import skill_from_run
from bridge.errors import BridgeError


def run(*pairs, state="done"):
    events = [{"type": "run_start", "run": "r1", "task": "add a customer"}]
    for n, (tool, args, ok) in enumerate(pairs, 1):
        events += [{"type": "tool_call", "step": n, "tool": tool, "args": args},
                   {"type": "tool_result", "step": n, "tool": tool, "ok": ok}]
    return events + [{"type": "run_done", "state": state}]


def test_successful_steps_become_the_skill_and_typed_values_its_parameters():
    skill = skill_from_run("add", run(
        ("page_navigate", {"url": "http://a.test/new"}, True),
        ("page_act", {"action": "fill", "selector": "#email", "value": "a@b.c"}, True),
        ("page_act", {"action": "click", "selector": "#nope"}, False),
        ("page_act", {"actions": [{"action": "click", "text": "Save"}]}, True),
        ("page_wait", {"text": "Saved a@b.c"}, True)))
    assert [s.action for s in skill.steps] == ["goto", "fill", "click"]
    assert skill.params[0].name == "email" and skill.params[0].default == "a@b.c"
    assert skill.until.text == "Saved {{email}}" and skill.scope == "http://a.test" and skill.source == "run:r1"


def test_a_run_not_done_or_addressed_by_refs_is_refused():
    with pytest.raises(BridgeError, match=r"\[run_not_done\]"):
        skill_from_run("x", run(("page_act", {"action": "click", "text": "Go"}, True), state="failed"))
    with pytest.raises(BridgeError, match=r"\[not_replayable\].*step 1 \(click e4@ab\)"):
        skill_from_run("x", run(("page_act", {"action": "click", "ref": "e4@ab"}, True)))
