"""Every tool publishes an outputSchema (its row's `output`, written with bridge/tools/outputs.py), and each is a valid JSON schema. That answers fit
them is checked by every call the official client makes in tests/inmemory and e2e/: it validates structured
content against outputSchema and fails the call when it does not fit."""

from jsonschema import Draft202012Validator

from bridge.tools import TOOLS

OUTPUTS = {t.name: t.output for t in TOOLS}


def test_every_tool_has_a_valid_output_schema():
    for name, schema in OUTPUTS.items():
        assert schema is not None, f"{name} has no output schema on its row"
        Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object" and schema["required"], name


def test_a_page_tools_schema_is_its_commands_result_plus_the_page_id():
    find = Draft202012Validator(OUTPUTS["page_find"])
    assert find.is_valid({"pageId": "5173/host", "matches": [], "total": 0, "more": False, "later": 1})
    assert not find.is_valid({"pageId": "5173/host", "matches": [{"ref": "e1"}], "total": 1, "more": False})
    assert not find.is_valid({"matches": [], "total": 0, "more": False})
