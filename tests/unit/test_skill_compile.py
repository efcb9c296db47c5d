"""A recording's steps compile into a skill: where it starts, which loads are navigations of their own, typed values
as named parameters with defaults, passwords as secrets, the stop condition following a parameter."""

from __future__ import annotations

from bridge.skills.compile import compile_recording, param_name
from bridge.skills.format import Until
from bridge.pages.protocol import RecordedStep

URL = "http://127.0.0.1:5173/orders"


def step(seq: int, action: str, t: int = 0, **kw) -> RecordedStep:
    target = kw.pop("target", None)
    return RecordedStep.model_validate({"seq": seq, "action": action, "t": t or seq * 1000, "url": URL,
                                        "target": target, **kw})


def field(label: str, selector: str = "#f") -> dict:
    return {"role": "textbox", "name": label, "selector": selector, "tag": "input", "label": label}


def test_typed_values_become_named_parameters_with_their_values_as_defaults():
    skill = compile_recording("add", [
        step(1, "load"),
        step(2, "fill", target=field("Customer email", "#email"), value="ada@example.com"),
        step(3, "fill", target=field("Customer email", "#email2"), value="b@example.com"),
        step(4, "fill", target=field("Password", "#pw"), secret=True),
        step(5, "click", target={"role": "button", "name": "Save", "selector": "#save", "tag": "button"}),
    ], Until(text="Saved ada@example.com"))
    assert [(p.name, p.default, p.secret) for p in skill.params] == [
        ("customer_email", "ada@example.com", False), ("customer_email_2", "b@example.com", False),
        ("password", None, True)]
    assert [s.action for s in skill.steps] == ["goto", "fill", "fill", "fill", "click"]
    assert skill.steps[1].value == "{{customer_email}}" and skill.steps[3].value == "{{password}}"
    assert skill.scope == "http://127.0.0.1:5173" and skill.start_url == URL
    assert skill.until == Until(text="Saved {{customer_email}}")


def test_a_field_typed_into_twice_in_a_row_is_one_fill_with_the_final_value():
    skill = compile_recording("x", [step(1, "fill", target=field("Name"), value="Ad"),
                                    step(2, "fill", target=field("Name"), value="Ada")])
    assert [(p.name, p.default) for p in skill.params] == [("name", "Ada")]
    assert [s.action for s in skill.steps] == ["goto", "fill"]


def test_a_load_right_after_a_click_is_its_navigation_and_a_later_one_is_a_goto():
    click = {"role": "link", "name": "Next", "selector": "a", "tag": "a"}
    skill = compile_recording("x", [step(1, "load"), step(2, "click", target=click), step(3, "load", t=2500),
                                    step(4, "click", target=click, t=3000), step(5, "load", t=60_000)])
    assert [s.action for s in skill.steps] == ["goto", "click", "click", "goto"]
    assert skill.steps[3].after == 57.0


def test_parameter_names_are_identifiers_and_follow_bracketed_field_names():
    taken: set[str] = set()
    assert param_name("root[0][location][city]", taken) == "city"
    assert param_name("2nd line", taken) == "v_2nd_line"
    assert param_name("", taken) == "value"
    assert param_name("City", taken) == "city_2"


def test_a_desktop_recording_compiles_to_tool_steps_with_typed_text_as_parameters():
    from bridge.skills.desktop import compile_desktop

    field = {"role": "text", "name": "Your name"}
    skill = compile_desktop("greet", {"steps": [
        {"tool": "desktop_click", "arguments": {"target": field, "window": "Greeter"}, "at": 0.5},
        {"tool": "desktop_type_text", "arguments": {"value": "Ada", "target": field, "window": "Greeter"}, "at": 1.0},
        {"tool": "desktop_type_text", "arguments": {"value": "<redacted>", "target": {"role": "password text"},
                                                    "window": "Greeter"}, "at": 2.0}]})
    assert skill.kind == "desktop" and skill.scope == "Greeter"
    assert [(p.name, p.default, p.secret) for p in skill.params] == [("your_name", "Ada", False),
                                                                      ("password", None, True)]
    assert [s.arguments["value"] for s in skill.steps[1:]] == ["{{your_name}}", "{{password}}"]
    assert skill.steps[2].after == 1.0
