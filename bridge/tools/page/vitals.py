"""page_vitals' answer: the page's long animation frames with where their time went at the lines written (sampled
functions when the document allows profiling, else each script's entry point), and LCP, CLS, INP with the element
each points at — the page's compiled positions mapped like an error's frames (bridge/tools/page/problems.py)."""

from __future__ import annotations

from typing import Any

from bridge.pages import stacks
from bridge.tools.page import problems
from bridge.tools.page.handle import Page

PROFILING_HINT = ("The time was in library code (a framework's event dispatch, e.g. React's), in code the browser does "
                  "not attribute (eval'd modules, e.g. webpack's eval-source-map), or in an act's synthetic input "
                  "(it runs inside the dbg-bridge client's task): to see which of your "
                  "functions ran, serve the page with the response header `Document-Policy: js-profiling` (Vite: "
                  "server.headers; webpack-dev-server: devServer.headers), so the client can sample them.")


def _frame_line(fn: str, url: str, line: Any, column: Any) -> str:
    return f"    at {fn or '<anonymous>'} ({url}:{int(line or 1)}:{int(column or 1)})"


async def report(page: Page, raw: dict[str, Any]) -> dict[str, Any]:
    """The page's vitals with every position mapped and each long frame summed up in one line."""
    frames = [f for f in raw.get("frames") or [] if isinstance(f, dict)]
    labels = {a.get("seq"): a.get("label") for a in raw.get("acts") or [] if isinstance(a, dict)}
    positions: list[str | None] = []  # one pseudo-stack per script and per sampled function, mapped in one go
    for f in frames:
        for s in f.get("scripts") or []:
            positions.append(_frame_line(s.get("fn", ""), s.get("url", ""), s.get("line"), s.get("column"))
                             if s.get("url") and s.get("line") else None)
        for h in f.get("hot") or []:
            positions.append(_frame_line(h.get("fn", ""), h.get("url", ""), h.get("line"), h.get("column")))
    elements = [e for e in (raw.get("lcp"), raw.get("inp"), *((raw.get("cls") or {}).get("elements") or []))
                if isinstance(e, dict) and e.get("generated")]
    positions += [_frame_line("", *str(e["generated"]).rsplit(":", 2)) for e in elements]
    mapped = iter(await problems.mapped(page, positions))
    out_frames = []
    library_only = False
    for f in frames:
        scripts, where = [], []
        for s in f.get("scripts") or []:
            m = next(mapped)
            if s.get("type") == "client":
                scripts.append(f"{s.get('ms')} ms {s.get('invoker')}")
                continue
            at = m[0].compact() if m else (f"{s.get('fn') or '?'} ({stacks.display_path(s.get('url') or '')})")
            lib = bool(m and m[0].library) or bool(stacks.LIBRARY.search(s.get("url") or ""))
            scripts.append(f"{s.get('ms')} ms {s.get('type') or 'script'} {s.get('invoker') or ''} -> {at}"
                           + (" [library]" if lib else ""))
        for h in f.get("hot") or []:
            m = next(mapped)
            if m:
                where.append(f"{h.get('ms')} ms in {m[0].compact()}")
        row: dict[str, Any] = {"start": f.get("start"), "ms": f.get("ms"), "blockingMs": f.get("blockingMs")}
        if f.get("act") in labels:
            row["after"] = labels[f["act"]]
        if where:
            row["in"] = where
        elif all("[library]" in s or "dbg-bridge client" in s for s in scripts):
            library_only = True  # (no script at all: code the browser does not attribute, such as eval'd modules)
        row["scripts"] = scripts
        out_frames.append(row)
    for e in elements:
        m = next(mapped)
        if m and not m[0].note:
            e["source"] = f"{m[0].file}:{m[0].line}:{m[0].column}"
            del e["generated"]
    out: dict[str, Any] = {"frames": out_frames, "cursor": raw.get("cursor"), "profiling": raw.get("profiling")}
    slowest = max(out_frames, key=lambda r: r.get("ms") or 0, default=None)
    if slowest is not None:
        top = ((slowest.get("in") or [None])[0] or (slowest["scripts"] or [None])[0]
               or "no script attributed (eval'd code, or the browser's own work: style, layout, paint)")
        out["slowest"] = f"{slowest['ms']} ms frame: {top}" + (f", after {slowest['after']}" if slowest.get("after")
                                                                else "")
    for key in ("lcp", "cls", "inp"):
        if raw.get(key) is not None:
            out[key] = raw[key]
    if isinstance(out.get("inp"), dict) and out["inp"].get("act") in labels:
        out["inp"]["after"] = labels[out["inp"].pop("act")]
    if library_only and raw.get("profiling") != "on":
        out["note"] = PROFILING_HINT
    return out
