"""The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16 on Node 22, installed into
.tools/conformance by scripts/test.sh) against a real bridge: every applicable server scenario passes.

Not applicable (they call fixture tools, prompts and resources of the suite's reference server, e.g.
`test_image_content`, `test_prompt_with_arguments`, `test://static-text`, which a bridge does not have):
completion, tools-call-{image,audio,embedded-resource,mixed-content,with-logging,with-progress,sampling,
elicitation}, elicitation-sep*, resources-read-*, resources-templates-read, prompts-get-*."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.support import ROOT, BridgeProcess, Bridges

TOOLS = ROOT / ".tools" / "conformance" / "node_modules" / ".bin"
APPLICABLE = ["server-initialize", "logging-set-level", "ping", "tools-list", "tools-call-simple-text",
              "tools-call-error", "server-sse-multiple-streams", "resources-list", "resources-subscribe",
              "resources-unsubscribe", "prompts-list", "dns-rebinding-protection"]


@pytest.fixture(scope="module")
def open_bridge(module_bridge_process: Bridges) -> BridgeProcess:
    """The suite sends no token: this bridge runs with --no-auth (Host/Origin checks stay on)."""
    return module_bridge_process("--no-auth", name="conformance")


def test_every_applicable_server_scenario_of_the_official_suite_passes(open_bridge):
    assert (TOOLS / "conformance").exists(), "run ./scripts/test.sh (it installs the suite into .tools/conformance)"
    proc = subprocess.run([str(TOOLS / "node"), str(TOOLS / "conformance"), "server", "--url", open_bridge.mcp_url],
                          capture_output=True, text=True, timeout=240)
    summary = proc.stdout.split("=== SUMMARY ===")[-1]
    results = {m.group(2): (int(m.group(3)), int(m.group(4)))
               for m in re.finditer(r"^([✓✗]) (\S+): (\d+) passed, (\d+) failed", summary, re.M)}
    missing = [s for s in APPLICABLE if s not in results]
    failed = [s for s in APPLICABLE if s in results and (results[s][1] or not results[s][0])]
    assert not missing and not failed, (missing, failed, proc.stdout[-4000:], proc.stderr[-2000:])
