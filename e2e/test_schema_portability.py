"""The MCP Inspector's own schema-portability lint (@modelcontextprotocol/inspector 2.12.0, `--cli … --method
tools/list --strict`, on Node 22; both installed into .tools by scripts/test.sh) against a real bridge with every
tool family served: no input schema gets a finding (type arrays, untyped or boolean schemas, remote $refs), so the
schemas runs and clients hand to model APIs are ones every model API takes."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from tests.support import ROOT

NODE = ROOT / ".tools" / "conformance" / "node_modules" / ".bin" / "node"
#: scripts/test.sh installs it here (DBG_TEST_INSPECTOR_DIR: another install, e.g. while .tools is shared).
INSPECTOR = Path(os.environ.get("DBG_TEST_INSPECTOR_DIR") or ROOT / ".tools" / "inspector") / "node_modules/.bin/mcp-inspector"
FAKE = "tests.inmemory.fake_desktop:FakeDesktop"


def test_the_inspectors_portability_lint_finds_nothing_in_any_input_schema(bridge_process):
    assert NODE.exists() and INSPECTOR.exists(), "run ./scripts/test.sh (it installs Node 22 and the Inspector)"
    bridge = bridge_process("--no-auth", env={"DBG_MODEL_URL": "http://127.0.0.1:9/v1", "DBG_DESKTOP_ENABLED": "1",
                                              "DBG_DESKTOP_BACKEND": FAKE, "PYTHONPATH": str(ROOT)})
    proc = subprocess.run([str(NODE), str(INSPECTOR), "--cli", bridge.mcp_url, "--transport", "http", "--method",
                           "tools/list", "--strict"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    listed = re.findall(r'"name": "([a-z_]+)"', proc.stdout)
    assert {"page_exec", "page_act", "agent_run", "desktop_click", "skill_run"} <= set(listed)
    report = proc.stderr
    inputs = [block for block in report.split("\n\n") if "Path: inputSchema" in block]
    assert not inputs, "\n\n".join(inputs)
    # what the lint still says is about outputSchemas only (`X | null` answers; no model API is given them)
    assert all("Path: outputSchema" in block for block in report.split("\n\n") if "Path:" in block)
