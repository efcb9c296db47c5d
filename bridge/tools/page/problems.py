"""What broke, for the page tools: errors with their stacks mapped to the lines written (bridge/pages/stacks.py; the maps
fetched through the page once per module version), failed requests as `METHOD /path status`, the distinct errors
grouped by their top frame with the act before each, and the acts that led to one saved as a repro skill."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from bridge.pages import stacks
from bridge.errors import BridgeError
from bridge.tools.page.handle import Page

#: Seconds the page may take to hand over the maps of one answer's stacks.
MAPS_WAIT = 20


async def mapped(page: Page, raw: list[str | None], hot: int = 0) -> list[list[stacks.Mapped]]:
    """Each stack's frames in the files as written; maps the bridge has not seen for this document are fetched from
    the page in one call (a page that cannot answer leaves the frames as compiled, with a note)."""
    cache = page.source_maps
    parsed = [stacks.parse(s) for s in raw]
    keys: dict[str, tuple[str, ...]] = {}
    missing: list[str] = []
    for frames in parsed:
        for f in frames:
            if f.url in keys or not stacks.needs_map(f):
                continue
            keys[f.url] = cache.key(page.page_id, page.document, f.url, hot)
            if keys[f.url] not in cache:
                missing.append(f.url)
    if missing:
        try:
            got = await page.call("maps", {"urls": missing[:50]}, MAPS_WAIT)
        except BridgeError:
            got = None  # not kept: the next error asks again
        if isinstance(got, dict) and isinstance(got.get("maps"), dict):
            for url in missing[:50]:
                cache.put(keys[url], got["maps"].get(url))
    return [[stacks.map_frame(f, cache.get(keys[f.url]) if f.url in keys else None) for f in frames]
            for frames in parsed]


def error_line(text: str, frames: list[stacks.Mapped]) -> str:
    """One error in one line: its message and its top app frame (`TypeError: … at priceWithTax (src/cart.ts:13:15)`)."""
    top = stacks.top_app(frames)
    return f"{text} at {top.compact()}" if top else text


def request_line(r: dict[str, Any], origin: str = "") -> str:
    """A failed request in one line: `POST /api/cart 404` (its path when it went to the page's `origin`)."""
    url = str(r.get("url") or "")
    parts = urlsplit(url)
    same = origin and f"{parts.scheme}://{parts.netloc}" == origin.rstrip("/")
    shown = (parts.path + (f"?{parts.query}" if parts.query else "")) if same else url
    status = r.get("status") or r.get("error") or "failed"
    return f"{r.get('method') or 'GET'} {shown[:300]} {status}"


async def report(page: Page, raw: dict[str, Any]) -> dict[str, Any]:
    """The `errors` and `failed` a page's answer carries (raw stacks, request rows), as one line each; {} when none."""
    out: dict[str, Any] = {}
    errs = [e for e in raw.get("errors") or [] if isinstance(e, dict)]
    if errs:
        frames = await mapped(page, [e.get("stack") for e in errs], int(raw.get("hot") or 0))
        out["errors"] = [error_line(str(e.get("text") or ""), f) for e, f in zip(errs, frames)]
        if raw.get("moreErrors"):
            out["errors"].append(f"… {raw['moreErrors']} more (page_console errors: true)")
    failed = [r for r in raw.get("failed") or [] if isinstance(r, dict)]
    if failed:
        origin = urlsplit(page.target.inst.url or "")
        out["failed"] = [request_line(r, f"{origin.scheme}://{origin.netloc}") for r in failed]
        if raw.get("moreFailed"):
            out["failed"].append(f"… {raw['moreFailed']} more (page_network failedOnly: true)")
    return out


async def with_report(page: Page, answer: Any) -> Any:
    """A page's answer with its raw `errors`/`failed` replaced by their lines (other answers as they are)."""
    if not isinstance(answer, dict) or not (answer.get("errors") or answer.get("failed")):
        return answer
    rest = {k: v for k, v in answer.items() if k not in ("errors", "failed", "moreErrors", "moreFailed", "hot")}
    return {**rest, **await report(page, answer)}


async def console_entries(page: Page, entries: list[dict[str, Any]], full: bool, hot: int = 0) -> list[dict[str, Any]]:
    """Console entries with each error's top app frame (`at`, and `code`: its line as written); `full` gives the whole
    mapped stack (`stack`, library frames folded) instead of the raw one."""
    errs = [e for e in entries if e.get("stack") and e.get("level") == "error"]
    frames = await mapped(page, [e["stack"] for e in errs], hot) if errs else []
    by_seq = {e.get("seq"): f for e, f in zip(errs, frames)}
    out = []
    for e in entries:
        e = {k: v for k, v in e.items() if k != "thrown"}
        f = by_seq.get(e.get("seq"))
        if f is not None:
            top = stacks.top_app(f)
            if top is not None:
                e.update(top.as_dict())
            # a stack with no frame to read (code run by eval, a browser's own format) stays as the page gave it
            e["stack"] = (stacks.folded(f) if f else e.get("stack")) if full else None
        elif not full:
            e["stack"] = None
        out.append({k: v for k, v in e.items() if v is not None})
    return out


def groups(entries: list[dict[str, Any]], acts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The distinct errors among console entries (already mapped), by top frame (else message), in the order first
    seen: count, first and last seen, and the act that came before the first one."""
    label = {a.get("seq"): a.get("label") for a in acts}
    out: dict[str, dict[str, Any]] = {}
    for e in entries:
        if e.get("level") != "error":
            continue
        key = e.get("at") or str(e.get("text") or "")[:300]
        g = out.get(key)
        if g is None:
            g = out[key] = {"error": e.get("text"), "at": e.get("at"), "code": e.get("code"), "count": 0,
                            "first": e.get("time"), "firstSeq": e.get("seq"), "act": e.get("act"),
                            "after": label.get(e.get("act")) or "no act of the agent's (page load, timer, or the human)"}
        g["count"] += 1
        g["last"], g["lastSeq"] = e.get("time"), e.get("seq")
    return [{k: v for k, v in g.items() if v is not None} for g in out.values()]


async def save_repro(page: Page, name: str, group: dict[str, Any], acts: list[dict[str, Any]], origin: str) -> Any:
    """The acts before an error saved as a repro skill (bridge/skills/repro.py), by the bridge's skill service."""
    if page.skills is None:
        raise BridgeError("Skills are not set up on this bridge, so no repro can be saved.", code="not_available")
    return await page.skills.save_repro(name, group, acts, origin)
