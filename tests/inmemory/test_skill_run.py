"""skill_run over MCP: a desktop skill needs no page (skill_run resolves a page only for a page skill), and every
replayed step goes through the one road into tools (bridge/tools/road.py): audited as the same call over /mcp
would be, refused with the same [code] errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.skills.format import Skill, Step, Until
from bridge.skills.service import SkillService
from bridge.skills.store import DiskStore
from tests.inmemory.fake_desktop import FakeDesktop
from tests.inmemory.harness import assert_shape, bridge

pytestmark = pytest.mark.anyio

FAKE = "tests.inmemory.fake_desktop:FakeDesktop"
ADD = {"target": {"role": "button", "name": "Add"}, "window": "Counter"}
TWICE = Skill(name="add-twice", kind="desktop", scope="Counter", source="recording",
              steps=[Step(action="tool", tool="desktop_click", arguments=ADD),
                     Step(action="tool", tool="desktop_click", arguments=ADD)],
              until=Until(window="Counter"))


async def test_a_desktop_skill_runs_over_mcp_with_no_page_connected(tmp_path: Path):
    async with bridge(tmp_path, desktop_enabled=True, desktop_backend=FAKE, no_audit=False) as b:
        b.state.skills = SkillService(b.state, DiskStore(tmp_path))
        await b.state.skills.skills.save(TWICE)
        assert (await b.ok("page_list"))["pages"] == []

        ran = await b.ok("skill_run", {"name": "add-twice"})

        assert ran["state"] == "done" and ran["until"] == "window 'Counter' open", ran
        fake = b.state.desktop.backend
        assert isinstance(fake, FakeDesktop) and fake.node("Count: 2", "Counter")
        # each step audited as the tool it is, between the skill_run that holds it
        tools = [r["tool"] for r in b.state.audit.recent if r["kind"] == "tool"]
        assert tools[-4:] == ["desktop_click", "desktop_click", "desktop_wait_for_window", "skill_run"], tools


async def test_a_page_skill_still_needs_its_page_and_a_desktop_skill_needs_the_desktop(tmp_path: Path):
    page_skill = Skill(name="save", kind="page", scope="http://localhost:5173", source="recording",
                       steps=[Step(action="goto", url="/")])
    async with bridge(tmp_path) as b:
        b.state.skills = SkillService(b.state, DiskStore(tmp_path))
        await b.state.skills.skills.save(page_skill)
        await b.state.skills.skills.save(TWICE)
        assert_shape(await b.call("skill_run", {"name": "save"}), "no_page")
        body = assert_shape(await b.call("skill_run", {"name": "add-twice"}), "skill_step_failed")
        assert "serves no desktop" in body


async def test_a_replayed_step_with_arguments_its_tool_refuses_fails_with_the_tools_own_error(tmp_path: Path):
    bad = Skill(name="bad-click", kind="desktop", scope="Counter", source="recording",
                steps=[Step(action="tool", tool="desktop_click", arguments={"target": "Add", "clicks": "many"})])
    async with bridge(tmp_path, desktop_enabled=True, desktop_backend=FAKE) as b:
        b.state.skills = SkillService(b.state, DiskStore(tmp_path))
        await b.state.skills.skills.save(bad)
        over_mcp = await b.call("desktop_click", {"target": "Add", "clicks": "many"})
        body = assert_shape(await b.call("skill_run", {"name": "bad-click"}), "skill_step_failed")
        assert assert_shape(over_mcp, "invalid_argument").split("] ", 1)[1] in body
