"""docs/architecture.md says which hand-written places a new page command touches; this checks the code keeps to
it: every command lives in those places, and no other hand-written file names a command's params."""

from __future__ import annotations

import re
from pathlib import Path

from bridge.pages import commands as page_commands
from bridge.pages.commands import COMMAND_TABLE
from bridge.tools import TOOLS
from bridge.tools.flatten import params_model

ROOT = Path(__file__).resolve().parents[2]
RECIPE = {"model": "bridge/pages/commands.py", "client": "inject/commands.js", "tool": "bridge/tools/page/tools.py",
          "test": "tests/inmemory/test_page_tools.py"}
#: Tools that own a command without being a thin front for it: page_exec runs any command (eval by code),
#: user_ask asks a question and waits (the `ask` command is the bridge's plumbing for question cards), page_tools and
#: page_call_tool front the page's own tools (their arguments are the page's schema, checked in the bridge).
NOT_FLAT = {"page_exec", "user_ask", "page_tools", "page_call_tool"}


def recipe() -> list[str]:
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("## Adding a page command touches", 1)[1].split("\n## ", 1)[0]
    return [re.search(r"`([^`]+)`", item).group(1) for item in re.findall(r"^\d+\. (.+)$", section, re.M)]


def test_the_recipe_names_four_hand_written_places():
    assert recipe() == list(RECIPE.values())
    for path in RECIPE.values():
        assert (ROOT / path).exists(), path


def test_every_command_has_its_models_and_row_in_the_model_module():
    for cmd in COMMAND_TABLE.values():
        assert cmd.params.__module__ == cmd.result.__module__ == page_commands.__name__, cmd.name


def test_every_command_has_an_entry_in_the_client_part():
    client = (ROOT / RECIPE["client"]).read_text()
    names = set(re.findall(r"^  async (\w+)\(", client, re.M))
    assert names == set(COMMAND_TABLE)


def test_every_owning_tool_takes_its_commands_params_model_and_is_tested():
    tools = {t.name: t for t in TOOLS}
    tests = "".join((ROOT / "tests/inmemory" / name).read_text()
                    for name in ("test_page_tools.py", "test_human_loop.py", "test_webmcp.py", "test_leases.py"))
    for cmd in COMMAND_TABLE.values():
        if cmd.tool is None:
            continue
        tool = tools[cmd.tool]
        owners = ("bridge.tools.page.tools", "bridge.tools.page.open_tab", "bridge.tools.user",
                  "bridge.tools.page.webmcp")
        assert tool.handler.__module__ in owners, cmd.tool
        assert f'"{cmd.tool}"' in tests or f'"{cmd.name}"' in tests, f"{cmd.tool} has no in-memory test"
        if cmd.tool in NOT_FLAT:
            continue
        found = params_model(tool.handler)
        assert found is not None and found[1] is cmd.params, f"{cmd.tool} does not take {cmd.params.__name__}"
        assert tool.output is not None, cmd.tool


def test_no_tool_writes_a_commands_param_by_hand():
    """A flattened tool's own arguments are only those its command does not have (a timeout, toFile)."""
    for tool in TOOLS:
        found = params_model(tool.handler)
        if found is None:
            continue
        own = set(tool.handler.__code__.co_varnames[:tool.handler.__code__.co_argcount]) - {found[0], "page"}
        assert not own & set(found[1].model_fields), (tool.name, own & set(found[1].model_fields))
