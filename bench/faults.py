"""Fault injection at scale: thousands of page_exec calls from concurrent MCP callers to real tabs (half on the
WebSocket, half on SSE, each with an iframe; calls go to the tab and to its frame) while tabs reload, close,
navigate away and back, go offline for 1-2 s, and the bridge is killed with SIGKILL and restarted.

    .venv/bin/python bench/faults.py [--calls 3000] [--tabs 8] [--callers 6] [--rounds 4]

One round of faults is: reload, navigate away and back, offline, close (and open another), reload, kill+restart.
Prints a table per channel and writes bench/results/faults.json. Judged per call (see tests/faults.py): lost
(ended page_timeout), duplicates (ran twice), "nothing ran" said of a call that ran, and how long after its fault
each failure was named.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import CHROMIUM, CHROMIUM_ARGS, BridgeProcess, machine, rss_mb, table, write_json  # noqa: E402

from tests.faults import FAULTS, FaultRun, Report  # noqa: E402
from tests.support import DevServer  # noqa: E402

COLUMNS = [("channel", "channel"), ("calls", "calls"), ("ok", "ok"), ("failed", "failed"), ("lost", "lost"),
           ("duplicates", "dupes"), ("false_nothing_ran", "false 'nothing ran'"), ("unexplained", "unexplained"),
           ("named_within_max_s", "named within (max s)"), ("named_p99_s", "p99 s")]


def rows(report: Report) -> list[dict]:
    out = []
    for channel in ("ws", "sse", "all"):
        calls = [c for c in report.calls if channel in ("all", c.channel)]
        sub = Report(calls, report.faults, report.counts, report.wall)
        s = sub.summary()
        named = sorted(n for c in calls if not c.ok and (n := sub.named_within(c)) is not None)
        s["named_p99_s"] = round(named[min(len(named) - 1, int(len(named) * 0.99))], 3) if named else 0.0
        out.append({"channel": channel, **s})
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=int, default=3000, help="at least this many calls (default 3000)")
    p.add_argument("--tabs", type=int, default=8)
    p.add_argument("--callers", type=int, default=6)
    p.add_argument("--rounds", type=int, default=4, help="rounds of faults, each with one bridge kill (default 4)")
    args = p.parse_args(argv)

    from playwright.sync_api import sync_playwright

    bridge = BridgeProcess(Path(tempfile.mkdtemp(prefix="dbg-faults-"))).start()
    dev = DevServer(bridge.client_js())
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context()
            run = FaultRun(bridge, dev, context, tabs=args.tabs, callers=args.callers, calls=args.calls)
            report = run.run(FAULTS * args.rounds)
            rss = rss_mb(bridge.proc.pid) if bridge.proc else None
            browser.close()
    finally:
        dev.close()
        bridge.stop()
    table_rows = rows(report)
    print(f"{len(report.calls)} calls, {args.tabs} tabs, {args.callers} callers, faults "
          f"{table_rows[-1]['faults']}, {report.wall:.1f} s; bridge RSS at the end {rss:.0f} MB" if rss else "")
    print(table(table_rows, COLUMNS))
    print("failure codes:", table_rows[-1]["codes"])
    t0 = min((c.started for c in report.calls), default=0.0)
    failures = [{"channel": c.channel, "pageId": c.page_id, "start_s": round(c.started - t0, 2),
                 "end_s": round(c.ended - t0, 2), "named_within_s": report.named_within(c), "text": c.text[:300]}
                for c in report.calls if not c.ok]
    faults = [{"kind": f.kind, "start_s": round(f.started - t0, 2), "end_s": round(f.ended - t0, 2), "tab": f.detail}
              for f in report.faults]
    path = write_json("faults.json", {"machine": machine(), "args": vars(args), "rows": table_rows,
                                      "faults": faults, "failures": failures})
    print(f"wrote {path.relative_to(Path(__file__).resolve().parents[1])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
