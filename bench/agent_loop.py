"""The agent loop's own cost per step (bridge + loop, the model excluded) beside a bare page_snapshot over /mcp.

A real bridge, a real page in headless Chromium (e2e/pages/app.html), and the scripted OpenAI-compatible server
of the e2e tests answering at once: the run calls page_snapshot N times. Per step:
  step      = from the model's reply reaching the bridge to the next request reaching the model server (the tool
              call in-process through the MCP server's call_tool, its audit, the trace and events, the next
              request built and sent) — the model's own time is outside it;
  tool      = the page_snapshot call inside it (the toolbox's measure);
  loop      = step - tool.
Reference, same bridge and page: page_snapshot over /mcp with the official client (HTTP + MCP on top of the tool).

    .venv/bin/python bench/agent_loop.py [--steps N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _common import machine, rss_mb, stats, table, write_json  # noqa: E402

from e2e.runs_api import RunsApi, done, of  # noqa: E402
from e2e.scripted_model import Req, ScriptedModel, call  # noqa: E402
from tests.support import CHROMIUM, CHROMIUM_ARGS, BridgeProcess, DevServer, McpSession, open_page  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()
    n = args.steps
    from playwright.sync_api import sync_playwright

    model = ScriptedModel()
    arrivals: list[float] = []

    def policy(req: Req):
        arrivals.append(time.time())
        if req.verifying:
            return call("verdict", done=True, reason="ok")
        if not req.called("plan"):
            return call("plan", steps=["snapshot the page"])
        k = req.called("page_snapshot")
        if k < n:  # alternate the arguments: the same call twice in a row would be a no-effect repeat
            return call("page_snapshot", interactiveOnly=bool(k % 2))
        return call("finish", summary="done")

    model.policies["bench"] = policy
    with tempfile.TemporaryDirectory(prefix="dbg-bench-agent-") as home:
        bridge = BridgeProcess(Path(home), env={"DBG_MODEL_URL": model.url, "DBG_DESKTOP_ENABLED": "0"}).start()
        site = DevServer(bridge.client_js())
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = open_page(browser.new_context(), site.url("/app.html"))
                page_id = page.evaluate("window.__dbg.pageId")
                mcp = McpSession(bridge.mcp_url, bridge.token)
                for _ in range(10):  # warm up both paths
                    mcp.call("page_snapshot", {"pageId": page_id})
                rss_before = rss_mb(bridge.proc.pid)
                api = RunsApi(bridge.base, bridge.token)
                started = time.perf_counter()
                _, events = api.run("Snapshot the page", model="bench", timeout=600,
                                    budgets={"max_steps": n + 1, "max_model_calls": n + 10})
                run_wall = time.perf_counter() - started
                api.close()
                assert done(events)["state"] == "done", done(events)
                replies = {e["n"]: e["t"] for e in of(events, "model_call")}
                tools = {e["step"]: e["ms"] for e in of(events, "tool_result") if e.get("step")}
                step_ms, tool_ms, loop_ms = [], [], []
                for step, ms in tools.items():
                    # step k is asked for by model call k+1 (the first call made the plan); the next request is k+2
                    reply, nxt = replies.get(step + 1), arrivals[step + 1] if step + 1 < len(arrivals) else None
                    if reply is None or nxt is None:
                        continue
                    total = (nxt - reply) * 1000
                    step_ms.append(total)
                    tool_ms.append(ms)
                    loop_ms.append(total - ms)
                ref = []
                for i in range(n):
                    t0 = time.perf_counter()
                    mcp.call("page_snapshot", {"pageId": page_id, "interactiveOnly": bool(i % 2)})
                    ref.append((time.perf_counter() - t0) * 1000)
                rss_after = rss_mb(bridge.proc.pid)
                mcp.close()
                browser.close()
        finally:
            site.close()
            bridge.stop()
            model.close()
    rows = [
        {"what": "run step (bridge + loop, no model)", **stats(step_ms, run_wall)},
        {"what": "  of which page_snapshot in-process", **stats(tool_ms, run_wall)},
        {"what": "  of which the loop", **stats(loop_ms, run_wall)},
        {"what": "page_snapshot over /mcp (reference)", **stats(ref, sum(ref) / 1000)},
    ]
    for r in rows[1:3]:
        r["calls_per_s"] = None
    print(table(rows, [("what", "what"), ("n", "n"), ("p50_ms", "p50 ms"), ("p99_ms", "p99 ms"),
                       ("mean_ms", "mean ms"), ("calls_per_s", "steps|calls/s")]))
    print(f"bridge RSS {rss_before:.1f} MB before the run, {rss_after:.1f} MB after ({n} steps); "
          f"loadavg {machine()['loadavg_1m']}")
    write_json("agent_loop.json", {"machine": machine(), "rows": rows, "rss_mb": [rss_before, rss_after]})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
