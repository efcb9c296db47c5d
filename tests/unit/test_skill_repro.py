"""bridge/skills/repro.py: the acts before an error, from the load of their document, as a skill that replays it."""

import pytest

from bridge.errors import BridgeError
from bridge.skills.repro import repro_skill

A = "http://localhost:5173/"


def act(seq: int, action: str, doc: str = "d2", **more):
    return {"seq": seq, "doc": doc, "url": A, "action": action, "frame": "host", "label": f"{action} {seq}", **more}


JOURNAL = [
    act(1, "click", doc="d1", target={"role": "button", "name": "Old"}),
    act(2, "goto", doc="d1", url=A + "cart"),  # journaled by the document it left
    {**act(3, "fill", target={"role": "textbox", "name": "Password", "inputType": "password"}, secret=True),
     "url": A + "cart"},
    act(4, "fill", target={"role": "textbox", "name": "Coupon"}, value="SAVE10"),
    act(5, "back"),
    act(6, "click", target={"role": "button", "name": "Add", "selector": "#add"}),
    act(7, "click", target={"role": "button", "name": "After"}),
]
GROUP = {"error": "Uncaught TypeError: x", "at": "priceWithTax (src/cart.ts:13:15)", "act": 6}


def test_the_acts_of_the_errors_document_up_to_its_act_start_with_a_goto_of_where_they_began():
    skill = repro_skill("crash", GROUP, JOURNAL, "http://localhost:5173")
    assert [s.action for s in skill.steps] == ["goto", "fill", "fill", "click"]
    assert skill.steps[0].url == A + "cart" and skill.start_url == A + "cart"
    assert skill.steps[2].value == "SAVE10" and skill.steps[3].target.selector == "#add"
    assert skill.until.error == "priceWithTax (src/cart.ts:13:15)" and skill.source == "errors"


def test_a_password_an_act_typed_is_a_secret_parameter_never_a_stored_value():
    skill = repro_skill("crash", GROUP, JOURNAL, "http://localhost:5173")
    (param,) = skill.params
    assert param.secret and skill.steps[1].value == "{{" + param.name + "}}"


def test_an_error_no_act_came_before_and_a_bad_name_are_refused_saying_why():
    with pytest.raises(BridgeError) as no_act:
        repro_skill("crash", {**GROUP, "act": None}, JOURNAL, "")
    assert no_act.value.code == "no_repro"
    with pytest.raises(BridgeError) as bad:
        repro_skill("not a name!", GROUP, JOURNAL, "")
    assert bad.value.code == "invalid_argument"
