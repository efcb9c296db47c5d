"""How a replayed step finds its target: role + name first, then text, then selector, the first way that finds
exactly one element wins; several everywhere (or none after waiting) fails the step saying what each way found and
what the page has instead."""

from __future__ import annotations

from typing import Any

import pytest

from bridge.skills.replay import StepFailed, match, run_page_step
from bridge.skills.format import Step, Target
from tests.support import run_async

SAVE = Target(role="button", name="Save", text="Save changes", selector="#save", tag="button")


class FakePage:
    """The page tools a replay calls (bridge/tools/road.py): page_find answered by which way it was asked (role+name,
    text, selector); records the calls, pageId apart."""

    def __init__(self, totals: dict[str, int]) -> None:
        self.totals, self.calls = totals, []

    async def __call__(self, tool: str, args: dict[str, Any]) -> Any:
        params = {k: v for k, v in args.items() if k != "pageId"}
        self.calls.append((tool, params))
        if tool == "page_wait":
            return {"met": True, "ms": 0}
        way = "role" if "role" in params and "text" in params else "text" if "text" in params else \
            "selector" if "selector" in params and params["selector"] != "button" else "nearby"
        n = self.totals.get(way, 0) if way != "nearby" else 2
        names = ["Save", "Save"] if way != "nearby" else ["Cancel", "Delete"]
        return {"total": n, "matches": [{"ref": f"e{i}", "name": names[i % 2]} for i in range(n)], "more": False}


def test_the_first_way_that_finds_exactly_one_element_wins():
    page = FakePage({"role": 2, "text": 1, "selector": 1})
    ref, seen = run_async(match(page, "1/host", SAVE, 1))
    assert ref == "e0" and seen == ["role button named 'Save': 2 ('Save', 'Save')"]
    assert [p for c, p in page.calls] == [{"role": "button", "text": "Save", "exact": True, "limit": 5},
                                          {"text": "Save changes", "exact": True, "limit": 5}]


@pytest.mark.parametrize(("totals", "says"), [
    ({"role": 2, "text": 3, "selector": 2}, "matched several elements"),
    ({}, "matched nothing"),
])
def test_several_everywhere_or_none_fails_the_step_naming_what_it_saw(totals, says):
    page = FakePage(totals)
    with pytest.raises(StepFailed) as err:
        run_async(run_page_step(page, "1/host", Step(action="click", target=SAVE), {}))
    text = str(err.value)
    assert says in text and "looked for role button named 'Save'" in text and "selector '#save'" in text
    assert "buttons on the page: 'Cancel', 'Delete'" in text
    assert ("page_wait", {"timeout": pytest.approx(10, abs=1), "text": "Save", "exact": True}) in page.calls


def test_a_repro_skill_says_whether_its_error_came_back_among_the_steps_errors():
    from bridge.skills.replay import reproduced
    from bridge.skills.format import Skill, Step, Until

    skill = Skill(name="crash", steps=[Step(action="goto", url="http://x/")],
                  until=Until(error="priceWithTax (src/cart.ts:13:15)"))
    back = reproduced(skill, ["Uncaught TypeError: x at priceWithTax (src/cart.ts:13:15)", "Uncaught Error: y"])
    assert back["reproduced"] is True and back["others"] == ["Uncaught Error: y"]
    assert reproduced(skill, [])["summary"] == "the error did not come back"
    assert reproduced(skill.model_copy(update={"until": None}), ["x"]) is None


def test_the_error_thrown_by_the_same_function_at_a_moved_line_counts_as_come_back():
    """An edit above the failing line (or a fix that did not fix it) moves the error: the same function in the same
    file still reproduces it, said in a note; another function or file does not."""
    from bridge.skills.format import Skill, Step, Until
    from bridge.skills.replay import reproduced

    skill = Skill(name="r", scope="http://localhost:5173", steps=[Step(action="goto", url="http://localhost:5173/")],
                  until=Until(error="priceWithTax (src/cart.ts:13:15)"))
    moved = reproduced(skill, ["Uncaught TypeError: x at priceWithTax (src/cart.ts:15:15)"])
    assert moved["reproduced"] is True and "another line" in moved["note"] and "others" not in moved
    assert moved["summary"] == "the error came back: Uncaught TypeError: x at priceWithTax (src/cart.ts:15:15)"
    elsewhere = reproduced(skill, ["Uncaught TypeError: x at priceWithTax (src/other.ts:13:15)",
                                   "Uncaught TypeError: x at addToCart (src/cart.ts:13:15)"])
    assert elsewhere["reproduced"] is False and len(elsewhere["others"]) == 2
