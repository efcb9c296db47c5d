"""The command table: every page command has one policy, the client answers the same names, owners exist."""

from __future__ import annotations

import pytest

from bridge.pages.protocol import COMMAND_TABLE, PROTOCOL_VERSION, ExecFrame, VersionMismatch, parse_register
from bridge.settings import Settings
from bridge.tools import TOOLS

def test_every_owned_command_names_a_real_tool_that_reads_only_when_the_command_does():
    tools = {t.name: t for t in TOOLS}
    for spec in COMMAND_TABLE.values():
        if spec.tool is None:
            assert spec.read_only and spec.consent is None, spec  # plumbing only reads
            continue
        assert spec.tool in tools, spec
        assert bool(tools[spec.tool].annotations.read_only_hint) == spec.read_only, spec
        if spec.consent:
            assert not spec.read_only, spec


def test_an_exec_frame_names_only_a_known_command():
    assert ExecFrame(requestId="r1", frameId="host", command="act", timeout=1).command == "act"
    with pytest.raises(ValueError):
        ExecFrame(requestId="r1", frameId="host", command="rm -rf", timeout=1)


def test_a_register_of_another_protocol_version_is_refused_with_a_reload_hint():
    with pytest.raises(VersionMismatch, match="reload"):
        parse_register('{"v": %d}' % (PROTOCOL_VERSION + 1))
    assert parse_register('{"v": %d}' % PROTOCOL_VERSION).v == PROTOCOL_VERSION


def test_disable_tools_matches_names_globs_and_acting():
    s = Settings(disable_tools=["page_nav*", "@acting"])
    assert s.tool_disabled("page_navigate", False) and s.tool_disabled("user_ask", False)
    assert not s.tool_disabled("page_snapshot", True)
