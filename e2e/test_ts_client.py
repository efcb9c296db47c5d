"""Cancellation (and a client closing mid-call), progress and elicitation with the TypeScript MCP SDK
(@modelcontextprotocol/sdk 1.32.2, the client most editors use; 2025-11-25 sessions) against the real bridge and
real Chromium tabs."""

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


def test_progress_reaches_the_typescript_client(bridge, dev, context):
    page = open_page(context, dev.url("/single.html"))
    # The text appears 2.3 s after the wait started in the page (node's own start-up is not counted).
    page.evaluate("""const t = setInterval(() => { if (window.__dbg.status().running) { clearInterval(t);
        setTimeout(() => document.body.append('arrived late'), 2300); } }, 20)""")
    out = run_ts(bridge, page.page_id, "progress")
    assert not out["isError"] and len(out["heard"]) >= 2, out
    assert all(p["total"] == 8 for p in out["heard"]) and "to finish 'wait'" in out["heard"][0]["message"]


def test_a_typescript_client_cancelling_aborts_the_code_in_the_page(bridge, dev, context):
    page = open_page(context, dev.url("/single.html"))
    out = run_ts(bridge, page.page_id, "cancel")
    assert out["aborted"] is True
    page.wait_for_function("window.__aborted === true", timeout=5000)
    page.wait_for_function("window.__dbg.status().running === 0", timeout=5000)


def test_a_typescript_client_answers_user_ask_by_elicitation(bridge, dev, context):
    page = open_page(context, dev.url("/app.html"))
    out = run_ts(bridge, page.page_id, "elicit")
    assert not out["isError"] and out["result"]["answer"] == "green" and out["result"]["via"] == "client", out
    assert out["asked"] and "Colour?" in out["asked"][0]
    page.locator("dbg-human [data-question]").wait_for(state="detached", timeout=5000)


def test_a_typescript_client_that_closes_mid_call_closes_the_card_it_left_open(bridge, dev, context):
    """That SDK's close() aborts its streams and sends neither notifications/cancelled nor DELETE; the bridge takes
    the dropped stream as the call's end (bridge/server/hangup.py)."""
    page = open_page(context, dev.url("/app.html"))
    proc = subprocess.Popen([shutil.which("node") or "node", str(CLIENT / "client.mjs"), bridge.mcp_url,
                             bridge.token or "-", page.page_id, "close"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        card = page.locator("dbg-human [data-question]")
        card.wait_for(timeout=15000)
        out, err = proc.communicate("closing\n", timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
    assert proc.returncode == 0, err[-3000:]
    assert json.loads(out.strip().splitlines()[-1])["call"] != "answered"
    card.wait_for(state="detached", timeout=5000)
