"""Elicitation with the TypeScript MCP SDK (@modelcontextprotocol/sdk 1.32.2, the client most editors use) against
the real bridge and a real Chromium tab."""

from __future__ import annotations

import json
import shutil
import subprocess

from tests.support import ROOT, open_page

CLIENT = ROOT / "e2e" / "ts_client"


def run_ts(bridge, page_id: str, scenario: str) -> dict:
    node = shutil.which("node")
    assert node and (CLIENT / "node_modules" / "@modelcontextprotocol" / "sdk").exists(), \
        "run ./scripts/test.sh (npm ci in e2e/ts_client)"
    proc = subprocess.run([node, str(CLIENT / "client.mjs"), bridge.mcp_url, bridge.token or "-", page_id, scenario],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_typescript_client_answers_user_ask_by_elicitation(bridge, dev, context):
    page = open_page(context, dev.url("/app.html"))
    out = run_ts(bridge, page.page_id, "elicit")
    assert not out["isError"] and out["result"]["answer"] == "green" and out["result"]["via"] == "client", out
    assert out["asked"] and "Colour?" in out["asked"][0]
    page.locator("dbg-human [data-question]").wait_for(state="detached", timeout=5000)
