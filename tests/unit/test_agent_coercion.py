"""Only unambiguous coercions, each said; everything else is left for the schema check."""

from bridge.runs.coercion import coerce

SCHEMA = {"properties": {
    "n": {"type": "integer"}, "x": {"type": "number"}, "flag": {"type": "boolean"}, "name": {"type": "string"},
    "action": {"enum": ["click", "fill", "Fill"], "type": "string"}, "kind": {"enum": ["text", "selector"]},
    "maybe": {"type": ["integer", "null"]}, "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
}}


def test_a_number_in_a_string_becomes_the_number_and_is_said():
    args, notes = coerce({"n": "5", "x": "2.5", "maybe": "-3"}, SCHEMA)
    assert args == {"n": 5, "x": 2.5, "maybe": -3}
    assert notes == ['coerced n "5" → 5', 'coerced x "2.5" → 2.5', 'coerced maybe "-3" → -3']


def test_a_fraction_or_words_for_an_integer_are_left_for_the_schema_check():
    for value in ("1.5", "five", "", "1e3", "0x10", " "):
        assert coerce({"n": value}, SCHEMA) == ({"n": value}, [])


def test_true_and_false_become_booleans_but_yes_does_not():
    assert coerce({"flag": "true"}, SCHEMA) == ({"flag": True}, ['coerced flag "true" → true'])
    assert coerce({"flag": "yes"}, SCHEMA) == ({"flag": "yes"}, [])


def test_an_enum_value_in_the_wrong_case_is_fixed_only_when_one_value_matches():
    assert coerce({"kind": "TEXT"}, SCHEMA) == ({"kind": "text"}, ['coerced kind "TEXT" → "text"'])
    assert coerce({"action": "Click"}, SCHEMA) == ({"action": "click"}, ['coerced action "Click" → "click"'])
    assert coerce({"action": "FILL"}, SCHEMA) == ({"action": "FILL"}, [])  # fill or Fill: ambiguous
    assert coerce({"action": "smash"}, SCHEMA) == ({"action": "smash"}, [])


def test_strings_where_strings_are_allowed_and_unknown_keys_stay_as_sent():
    assert coerce({"name": "5", "either": "5", "other": "5"}, SCHEMA) == ({"name": "5", "either": "5", "other": "5"}, [])
