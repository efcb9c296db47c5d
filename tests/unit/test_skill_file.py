"""The skill file: versioned, checked when read or edited (a bad one is refused saying what to fix), saved with a
new revision each time; parameters bound from defaults and given values."""

from __future__ import annotations

from tests.support import run_async
import json

import pytest

from bridge.skills.store import DiskStore
from bridge.skills.format import Skills, fill_in, parse
from bridge.errors import BridgeError

DOC = {"name": "add", "scope": "http://a.test", "params": [{"name": "email", "default": "a@b.c"},
                                                          {"name": "pw", "secret": True}],
       "steps": [{"action": "goto", "url": "http://a.test/"},
                 {"action": "fill", "target": {"selector": "#e"}, "value": "{{email}}"},
                 {"action": "fill", "target": {"selector": "#p"}, "value": "{{pw}}"}]}


def test_bind_takes_defaults_refuses_unknown_names_and_asks_for_secrets():
    skill = parse(DOC)
    assert skill.bind({"pw": "x"}) == {"email": "a@b.c", "pw": "x"}
    with pytest.raises(BridgeError, match=r"\[missing_param\].*pw"):
        skill.bind({})
    with pytest.raises(BridgeError, match=r"\[invalid_argument\].*no parameter nope"):
        skill.bind({"nope": "1", "pw": "x"})
    assert fill_in("to {{email}} and {{other}}", {"email": "z"}) == "to z and {{other}}"


@pytest.mark.parametrize(("change", "says"), [
    ({"format": 9}, "format 9"),
    ({"steps": [{"action": "fly"}]}, "steps.0.action"),
    ({"steps": [{"action": "fill", "value": "{{undeclared}}"}]}, "{{undeclared}}"),
    ({"name": "other"}, "not 'add'"),
])
def test_a_bad_skill_is_refused_saying_what_to_fix(change, says):
    with pytest.raises(BridgeError) as err:
        parse({**DOC, **change}, "add")
    assert err.value.code == "bad_skill" and says in str(err.value)


def test_saving_again_bumps_the_revision_and_the_file_stays_readable(tmp_path):
    skills = Skills(DiskStore(tmp_path))
    assert run_async(skills.save(parse(DOC))).revision == 1
    assert run_async(skills.save(parse(DOC))).revision == 2
    on_disk = json.loads((tmp_path / "skills" / "add.json").read_text())
    assert on_disk["revision"] == 2 and on_disk["format"] == 1 and on_disk["steps"][1]["value"] == "{{email}}"
    with pytest.raises(BridgeError, match=r"\[unknown_skill\].*Skills here: add"):
        run_async(skills.get("missing"))
    with pytest.raises(BridgeError, match=r"\[invalid_argument\]"):
        run_async(skills.get("../etc/passwd"))
