"""The in-page snapshot of this tree beside another revision's, on bench/snapshot.py's 5,000-element page, in one
browser, measured in turns (A, B, A, B, …) so both meet the same load.

The other revision is exported with `git archive REV` to a temporary directory and served by its own bridge process
(`python -m bridge serve` run there); each bridge injects its own client into its own copy of the page.

    .venv/bin/python bench/snapshot_ab.py [--rev main] [--reps 30]

Prints p50 and min of `window.__dbg.commands.snapshot()` for each side, on an unchanged DOM and with a DOM change
just before each call, and the characters of each tree.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import CHROMIUM, CHROMIUM_ARGS, ROOT, BridgeProcess, table  # noqa: E402
from snapshot import CONNECTED, PageServer, generated_page  # noqa: E402

RUN = """async (mutate) => {
  const change = mutate ? document.body.appendChild(document.createElement('div')) : null;
  if (change) change.hidden = true;
  const t0 = performance.now();
  const out = await window.__dbg.commands.snapshot({ maxChars: 200000, depth: 64, interactiveOnly: false, boxes: false,
    detailed: false, includeFrames: false, full: false, from: 0 });
  const ms = performance.now() - t0;
  if (change) change.remove();
  return [ms, out.tree.length];
}"""


def export(rev: str, into: Path) -> Path:
    """`git archive rev` unpacked into `into`, laid out as an installed package (bridge.inject, bridge.cockpit)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    for part in ("inject", "cockpit"):
        (into / "bridge" / part).symlink_to(into / part)
    return into


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rev", default="main", help="the revision to compare with (default: main)")
    ap.add_argument("--reps", type=int, default=30, help="turns per side")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as c1, tempfile.TemporaryDirectory() as c2, \
            tempfile.TemporaryDirectory() as tree:
        sides = {"this tree": BridgeProcess(Path(c1)).start(),
                 args.rev: BridgeProcess(Path(c2), cwd=export(args.rev, Path(tree))).start()}
        servers = {k: PageServer(generated_page(b.client_js())) for k, b in sides.items()}
        times: dict[str, dict[str, list[float]]] = {k: {"same": [], "changed": []} for k in sides}
        chars: dict[str, int] = {}
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                pages: dict[str, Any] = {}
                for k, srv in servers.items():
                    pages[k] = browser.new_page()
                    pages[k].goto(srv.url)
                    pages[k].wait_for_function(CONNECTED, timeout=30000)
                for _ in range(args.reps):
                    for k, page in pages.items():
                        ms, chars[k] = page.evaluate(RUN, False)
                        times[k]["same"].append(ms)
                        times[k]["changed"].append(page.evaluate(RUN, True)[0])
                browser.close()
        finally:
            for srv in servers.values():
                srv.close()
            for b in sides.values():
                b.stop()
    rows = [{"side": k, "p50": round(statistics.median(t["same"]), 1), "min": round(min(t["same"]), 1),
             "cp50": round(statistics.median(t["changed"]), 1), "cmin": round(min(t["changed"]), 1),
             "chars": chars[k]} for k, t in times.items()]
    print(table(rows, [("side", "side"), ("p50", "in-page p50 ms"), ("min", "min"), ("cp50", "after change p50"),
                       ("cmin", "min"), ("chars", "tree chars")]))


if __name__ == "__main__":
    main()
