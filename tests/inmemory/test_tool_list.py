"""tools/list is paid for in every agent's context: the default family (page_*, user_*, inbox) stays within
10,000 characters of JSON, exactly as a client receives it; the desktop family is registered only where its
backend can load."""

from __future__ import annotations

from pathlib import Path

from mcp.types import ListToolsResult

from bridge.settings import Settings
from tests.inmemory.harness import bridge, run

DEFAULT_BUDGET = 10_000
DESKTOP_BUDGET = 15_000
DEFAULT_FAMILY = {"page_list", "page_exec", "page_snapshot", "page_find", "page_act", "page_wait", "page_navigate",
                  "page_console", "page_network", "page_source", "page_highlight", "page_screenshot", "user_ask",
                  "user_notify", "inbox"}


def wire(tools) -> str:
    return ListToolsResult(tools=tools).model_dump_json(by_alias=True, exclude_none=True)


def test_the_default_family_fits_its_budget(tmp_path: Path):
    async def go():
        async with bridge(tmp_path) as b:
            tools = (await b.client.list_tools()).tools
        figure = len(wire(tools))
        print(f"\ntools/list, default family: {len(tools)} tools, {figure} characters (budget {DEFAULT_BUDGET})")
        assert {t.name for t in tools} == DEFAULT_FAMILY
        assert figure <= DEFAULT_BUDGET
    run(go())


def test_the_desktop_family_fits_its_budget(tmp_path: Path):
    """Measured from the whole table (what a machine whose desktop backend loads registers)."""
    from bridge.dispatch import Dispatcher
    from bridge.mcp_server import build_server
    from bridge.tools import TOOLS

    async def go():
        server = build_server(Dispatcher(Settings(config_dir=tmp_path, no_audit=True)), TOOLS)
        listed = await server.list_tools()
        desktop = [t for t in listed if t.name.startswith("desktop_")]
        figure, whole = len(wire(desktop)), len(wire(listed))
        print(f"\ntools/list, desktop family: {len(desktop)} tools, {figure} characters (budget {DESKTOP_BUDGET}); "
              f"with the default family: {whole}")
        assert figure <= DESKTOP_BUDGET
    run(go())


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
        assert names == DEFAULT_FAMILY
    run(go())
    assert desktop.why_unavailable(Settings()) == "Python packages missing: mss (pip install 'dbg-bridge[desktop]')"


def test_doctor_says_why_the_desktop_tools_are_not_registered(monkeypatch):
    import bridge.desktop as desktop
    from bridge.doctor import checks

    monkeypatch.setattr(desktop, "X11_MODULES", {"no_such_module_here": "mss"})
    check = next(c for c in checks(Settings()) if c.name == "desktop tools")
    assert not check.ok and check.detail == ("desktop_* tools not registered: Python packages missing: mss "
                                             "(pip install 'dbg-bridge[desktop]')")
