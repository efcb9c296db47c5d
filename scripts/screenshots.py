"""Screenshots of the cockpit for docs/cockpit.md: docs/cockpit-*.png (1200x800).

Starts a bridge (consent on, its own throwaway home), connects the built-in demo page in Debian's Chromium, drives a
few tool calls through the official MCP client, and captures each part of the cockpit. The Runs tab shows a run
driven by the e2e tests' scripted model (e2e/scripted_model.py), stopped at its takeover; cockpit-run-show.png is
the same run once finished, as Show renders it from its trace.

    .venv/bin/python scripts/screenshots.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright

from e2e.scripted_model import Req, ScriptedModel, call
from tests.support import CHROMIUM, CHROMIUM_ARGS, BridgeProcess, McpSession

DOCS = ROOT / "docs"
SIZE = {"width": 1200, "height": 800}
CONNECTED = "window.__dbg && window.__dbg.status().state === 'connected'"


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="dbg-shots-") as home:
        config = Path(home) / ".config" / "dbg-bridge"
        config.mkdir(parents=True)
        model = ScriptedModel()
        model.policies["default"] = counter_run
        bridge = BridgeProcess(config, env={"HOME": home, "DBG_NO_CONSENT": "0", "DBG_MODEL_URL": model.url}).start()
        mcp = None
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                ctx = browser.new_context(viewport=SIZE, device_scale_factor=1)
                cockpit = ctx.new_page()
                cockpit.goto(bridge.base + "/#setup")
                cockpit.locator("#status[data-state=live]").wait_for(timeout=10000)
                shoot(cockpit, "setup")  # fresh: "no agent connected yet"

                demo = ctx.new_page()
                demo.goto(bridge.base + "/demo")
                demo.wait_for_function(CONNECTED, timeout=10000)
                page_id = demo.evaluate("window.__dbg.pageId")
                mcp = McpSession(bridge.mcp_url, bridge.token)
                mcp.call("page_list")
                mcp.call("page_snapshot", {"pageId": page_id, "interactive": True})
                mcp.call("page_find", {"pageId": page_id, "text": "count is"})
                mcp.call("page_act", {"pageId": page_id, "action": "click", "selector": "#counter"})
                mcp.call("page_act", {"pageId": page_id, "action": "fill", "selector": "#name", "value": "Ada"})
                mcp.call("page_console", {"pageId": page_id})
                mcp.call("page_exec", {"pageId": "zz999/host", "code": "document.title"})  # an error, for the feed
                cockpit.goto(bridge.base + "/#inbox")
                cockpit.locator("#status[data-state=live]").wait_for(timeout=10000)
                cockpit.locator("#message").fill("The greeting should use the name from the profile, not the form.")
                cockpit.locator("#message-page").select_option(page_id)
                cockpit.locator("#send").click()
                cockpit.locator("#sent.ok").wait_for(timeout=5000)
                mcp.call("inbox")
                question = mcp.start("user_ask", {"pageId": page_id, "question": "Is the counter meant to start at 0?",
                                                  "wait": 120})
                consent = mcp.start("page_exec", {"pageId": page_id, "code": "localStorage.clear()"})
                cockpit.locator("#question-cards [data-question]").nth(1).wait_for(timeout=10000)
                shoot(cockpit, "inbox")
                cockpit.goto(bridge.base + "/#sessions")
                cockpit.locator("#pages tr").first.wait_for(timeout=10000)
                shoot(cockpit, "sessions")
                cockpit.goto(bridge.base + "/#activity")
                cockpit.locator("#feed tr").first.wait_for(timeout=10000)
                shoot(cockpit, "activity")
                cockpit.locator("[data-question] button[data-answer=true]").click()
                cockpit.locator("[data-question] button[data-answer=Deny]").click()
                question.result(15)
                consent.result(15)
                cockpit.goto(bridge.base + "/#runs")
                cockpit.locator("#run-task").fill("Click the counter and check it counts")
                cockpit.locator("#run-start").click()
                cockpit.locator("#run-takeover:not([hidden])").wait_for(timeout=20000)
                cockpit.locator("#takeover-note").fill("It says 2, looks right")
                shoot(cockpit, "runs")
                cockpit.locator("button[data-takeover=resume]").click()
                cockpit.locator("#run-summary[data-state]").wait_for(timeout=20000)
                run_id = cockpit.locator("#run-live").get_attribute("data-run")
                cockpit.goto(bridge.base + "/#runs")  # a finished run, shown from its trace
                cockpit.locator(f"#runs tr[data-run='{run_id}'] button").click()
                cockpit.locator("#run-summary[data-state]").wait_for(timeout=10000)
                shoot(cockpit, "run-show")
                ctx.close()
                browser.close()
        finally:
            if mcp is not None:
                mcp.close()
            bridge.stop()
            model.close()
    return 0


def counter_run(req: Req):
    """The scripted model of the Runs shot: plan, click the counter, hand over to the human, finish."""
    if req.verifying:
        return call("verdict", done=True, reason="the count went up")
    if not req.called("plan"):
        return call("plan", steps=["Click the counter", "Ask the human to confirm the count"],
                    stop_conditions=[{"kind": "text", "value": "count is 2"}])
    if not req.called("page_act"):
        return call("page_act", action="click", selector="#counter")
    if not req.called("pause_for_human"):
        return call("pause_for_human", reason="confirm the counter shows 2")
    return call("finish", summary="The counter counts")


def shoot(page, name: str) -> None:
    page.evaluate("document.activeElement && document.activeElement.blur()")
    path = DOCS / f"cockpit-{name}.png"
    page.screenshot(path=str(path))
    print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    raise SystemExit(main())
