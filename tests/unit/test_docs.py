"""The reference docs are generated from the code and must not go stale."""

from pathlib import Path

from bridge.gen.reference import DOCS
from bridge.settings import Settings
from bridge.tools import TOOLS

ROOT = Path(__file__).resolve().parents[2]


def test_generated_reference_docs_match_the_code():
    for rel, render in DOCS.items():
        assert (ROOT / rel).read_text() == render(), f"{rel} is stale: run `python scripts/gen_docs.py`"


def test_every_tool_has_a_description_and_a_family_prefix():
    for tool in TOOLS:
        assert tool.description, tool.name
        assert tool.name.split("_")[0] in {"page", "user", "inbox", "skill", "desktop", "agent"}, tool.name


def test_every_setting_has_a_description():
    for name, field in Settings.model_fields.items():
        assert field.description, name
