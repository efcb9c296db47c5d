"""tools/list is paid for in every agent's context: the default family (page_*, user_*, inbox) stays within
10,900 characters of JSON as a client receives it (10,000 until page_wait's `update`, the dev server's next hot
update, and page_vitals with page_console's debugging options joined it; 10,700 until page_act offered every
parameter of the agent's, dx, dy and dryRun included, and hid none: bridge/tools/page/act.py; 10,775 until input schemas
gave up `type` arrays for `anyOf`, which every model API takes: tests/inmemory/test_schema_portability.py),
outputSchema aside; the
skill family (skill_list, skill_run) within 800 more (`--disable-tools 'skill_*'` takes it out), the WebMCP family (page_tools, page_call_tool) within
700 more (`--disable-tools page_tools,page_call_tool`), page_open (a tab of an agent's own) within 720 more; the desktop family is registered only where its backend
can load.

outputSchema has its own budget: clients use it to validate structured content, and the model APIs agents run on
take a tool's name, description and input schema, not its output schema, so it is not in the agent's context. It
is still bytes on every tools/list, so it is kept compact and measured too."""

from __future__ import annotations

import json
from pathlib import Path

from mcp.types import ListToolsResult

from bridge.settings import Settings
from tests.inmemory.harness import bridge, run

#: page_wait's `update` (10,100), then page_vitals and page_console's debugging options (issue 28), then page_act's
#: dx, dy and dryRun, hidden no more (issue 31), then anyOf in place of type arrays (issue 32: the MCP Inspector's
#: schema-portability lint).
DEFAULT_BUDGET = 10_900
DESKTOP_BUDGET = 15_350
DEFAULT_OUTPUT_BUDGET = 6_250
SKILL_BUDGET = 800
SKILL_OUTPUT_BUDGET = 400
SKILL_FAMILY = {"skill_list", "skill_run"}
WEBMCP_BUDGET = 700
WEBMCP_OUTPUT_BUDGET = 250
WEBMCP_FAMILY = {"page_tools", "page_call_tool"}
#: page_open (a tab of an agent's own: docs/many-agents.md), `--disable-tools page_open` takes it out.
OPEN_BUDGET = 720
OPEN_FAMILY = {"page_open"}
DESKTOP_OUTPUT_BUDGET = 4_500
DEFAULT_FAMILY = {"page_list", "page_exec", "page_snapshot", "page_find", "page_act", "page_wait", "page_navigate",
                  "page_console", "page_vitals", "page_network", "page_source", "page_highlight", "page_screenshot", "user_ask",
                  "user_notify", "inbox"}


def wire(tools) -> str:
    """tools/list as JSON, outputSchema aside (what an agent's model is given)."""
    shown = [t.model_copy(update={"output_schema": None}) for t in tools]
    return ListToolsResult(tools=shown).model_dump_json(by_alias=True, exclude_none=True)


def outputs(tools) -> int:
    return sum(len(json.dumps(t.output_schema, separators=(",", ":"))) for t in tools)


def test_the_default_family_fits_its_budget(tmp_path: Path):
    async def go():
        async with bridge(tmp_path) as b:
            listed = (await b.client.list_tools()).tools
        tools = [t for t in listed if t.name not in SKILL_FAMILY | WEBMCP_FAMILY | OPEN_FAMILY]
        opening = [t for t in listed if t.name in OPEN_FAMILY]
        skills = [t for t in listed if t.name in SKILL_FAMILY]
        webmcp = [t for t in listed if t.name in WEBMCP_FAMILY]
        figure, out = len(wire(tools)), outputs(tools)
        print(f"\ntools/list, default family: {len(tools)} tools, {figure} characters (budget {DEFAULT_BUDGET}); "
              f"outputSchema {out} (budget {DEFAULT_OUTPUT_BUDGET}); skill family {len(wire(skills)) - 11} "
              f"(budget {SKILL_BUDGET}), outputSchema {outputs(skills)} (budget {SKILL_OUTPUT_BUDGET}); WebMCP "
              f"family {len(wire(webmcp)) - 11} (budget {WEBMCP_BUDGET}), outputSchema {outputs(webmcp)} (budget "
              f"{WEBMCP_OUTPUT_BUDGET}); page_open {len(wire(opening)) - 11} (budget {OPEN_BUDGET})")
        assert {t.name for t in tools} == DEFAULT_FAMILY and {t.name for t in skills} == SKILL_FAMILY
        assert {t.name for t in webmcp} == WEBMCP_FAMILY
        assert figure <= DEFAULT_BUDGET and out <= DEFAULT_OUTPUT_BUDGET
        # the family's own characters: its part of the list, without the `{"tools":[]}` wrapper both would share
        assert len(wire(skills)) - 11 <= SKILL_BUDGET and outputs(skills) <= SKILL_OUTPUT_BUDGET
        assert len(wire(webmcp)) - 11 <= WEBMCP_BUDGET and outputs(webmcp) <= WEBMCP_OUTPUT_BUDGET
        assert len(wire(opening)) - 11 <= OPEN_BUDGET
        assert all(t.output_schema for t in listed)
    run(go())


def test_the_desktop_family_fits_its_budget(tmp_path: Path):
    """Measured from the whole table (what a machine whose desktop backend loads registers)."""
    from bridge.state import BridgeState
    from bridge.server.mcp_server import build_server
    from bridge.tools import TOOLS

    async def go():
        server = build_server(BridgeState(Settings(config_dir=tmp_path, no_audit=True)), TOOLS)
        listed = await server.list_tools()
        desktop = [t for t in listed if t.name.startswith("desktop_")]
        figure, whole, out = len(wire(desktop)), len(wire(listed)), outputs(desktop)
        print(f"\ntools/list, desktop family: {len(desktop)} tools, {figure} characters (budget {DESKTOP_BUDGET}); "
              f"with the default family: {whole}; outputSchema {out} (budget {DESKTOP_OUTPUT_BUDGET})")
        assert figure <= DESKTOP_BUDGET and out <= DESKTOP_OUTPUT_BUDGET
        assert all(t.output_schema for t in listed)
    run(go())


def test_the_desktop_family_is_served_only_when_the_user_turns_it_on(tmp_path: Path):
    from bridge.tools import enabled_tools
    from bridge.tools.desktop import TOOLS as DESKTOP

    default = {t.name for t in enabled_tools(Settings(config_dir=tmp_path))}
    assert default == DEFAULT_FAMILY | SKILL_FAMILY | WEBMCP_FAMILY | OPEN_FAMILY
    on = {t.name for t in enabled_tools(Settings(config_dir=tmp_path, desktop_enabled=True))}
    assert on == DEFAULT_FAMILY | SKILL_FAMILY | WEBMCP_FAMILY | OPEN_FAMILY | {t.name for t in DESKTOP}


def test_schemas_carry_no_titles_or_null_unions(tmp_path: Path):
    async def go():
        async with bridge(tmp_path) as b:
            text = wire((await b.client.list_tools()).tools)
        assert '"title"' not in text and '{"type":"null"}' not in text and '"default":null' not in text
    run(go())


def test_the_desktop_family_is_not_registered_when_its_backend_cannot_load(tmp_path: Path, monkeypatch):
    import bridge.desktop as desktop

    monkeypatch.setattr(desktop, "X11_MODULES", {"no_such_module_here": "mss"})

    async def go():
        async with bridge(tmp_path, desktop_enabled=True) as b:
            names = {t.name for t in (await b.client.list_tools()).tools}
        assert names == DEFAULT_FAMILY | SKILL_FAMILY | WEBMCP_FAMILY | OPEN_FAMILY
    run(go())
    assert desktop.why_unavailable(Settings(desktop_enabled=True)) == "Python packages missing: mss (pip install 'dbg-bridge[desktop]')"


def test_doctor_says_why_the_desktop_tools_are_not_registered(monkeypatch):
    import bridge.desktop as desktop
    from bridge.cli.doctor import checks

    monkeypatch.setattr(desktop, "X11_MODULES", {"no_such_module_here": "mss"})
    off = next(c for c in checks(Settings()) if c.name == "desktop tools")
    assert off.ok and "--desktop-enabled" in off.detail and "DBG_DESKTOP_ENABLED=1" in off.detail
    check = next(c for c in checks(Settings(desktop_enabled=True)) if c.name == "desktop tools")
    assert not check.ok and check.detail == ("desktop_* tools not registered: Python packages missing: mss "
                                             "(pip install 'dbg-bridge[desktop]')")
