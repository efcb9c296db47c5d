"""page_open: an agent opens a tab of its own — a new window of a connected page's app, in the human's browser
through the extension, or in a browser on the bridge's desktop — waits for its page client to connect, and holds it
as its own (bridge/pages/leases.py: no other agent acts there).

Only the page's own origin is opened (page_open is for working beside the human in their app; desktop_open_url opens
anything else on the bridge's desktop)."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any, Literal
from urllib.parse import urljoin, urlsplit

from pydantic import Field

from bridge import errors
from bridge.pages import commands as m
from bridge.pages.registry import Instance, url_origin
from bridge.tools.base import Tool, acting
from bridge.tools.outputs import obj
from bridge.tools.page.handle import Page

Route = Literal["auto", "extension", "desktop"]


def tab_origin(inst: Instance) -> str:
    """The tab's origin (verified when its browser said it), lower-case, to compare with a URL's."""
    return (inst.verified_origin or inst.origin or url_origin(inst.url or "") or "").lower()


async def page_open(
    page: Page,
    params: m.OpenParams,
    route: Annotated[Route, Field(description="extension: in the human's browser; desktop: on the bridge's "
                                              "desktop.")] = "auto",
    timeout: Annotated[float, Field(gt=0, le=120)] = 20,
) -> dict[str, Any]:
    """Open a tab of your own on this page's app (a new window); answers its pageId once connected. No other agent
    acts there."""
    tab = page.tab
    opener = tab.target.inst
    target = urljoin(opener.url or "", params.url or opener.url or "")
    origin = (url_origin(target) or "").lower()
    if urlsplit(target).scheme not in ("http", "https") or origin != tab_origin(opener):
        raise errors.BridgeError(f"page_open opens tabs of the page's own origin ({tab_origin(opener)}), not "
                                 f"{target[:200]!r}; desktop_open_url opens other sites on the bridge's desktop.",
                                 code="bad_arguments")
    use = route
    if use == "auto":
        use = "extension" if opener.attach == "extension" else "desktop" if page.desktop is not None else "none"
    before = set(page.registry.instances)
    started = time.monotonic()
    extra: dict[str, Any] = {}
    if use == "extension":
        if opener.attach != "extension":
            raise errors.BridgeError(f"route 'extension' opens from a tab the dbg-bridge extension connected; tab "
                                     f"{opener.id} came from a script tag or a plugin. Enable the site in the "
                                     "extension's popup (the tab reloads with it), or use route 'desktop'.",
                                     code="no_route")
        await tab.call("open", {"url": target}, timeout)
    elif use == "desktop":
        if page.desktop is None:
            raise errors.BridgeError("route 'desktop' needs the bridge's desktop: start the bridge with "
                                     "DBG_DESKTOP_ENABLED=1.", code="no_route")
        from bridge.tools.desktop.apps import desktop_open_url  # the desktop family's own launch and consent
        opened = await desktop_open_url(page.desktop, target, timeout)
        pid = (opened.get("app") or {}).get("pid")
        if pid is not None:  # the browser the bridge launched for it: desktop_quit_app closes it
            extra["pid"] = pid
    else:
        raise errors.BridgeError(
            f"The bridge has no way to open a tab here: tab {opener.id} came from a script tag or a plugin, which "
            "cannot open a window without a person's click, and the bridge's desktop is off. Ask the human to open "
            "the app in a new tab (user_ask) and take its pageId from page_list; or load the dbg-bridge extension "
            "(plugins/extension) and enable the site; or start the bridge with DBG_DESKTOP_ENABLED=1 to open tabs in "
            "a browser on its desktop.", code="no_route")
    inst = await arrived(page.registry, before, origin, timeout - (time.monotonic() - started), use)
    own = page.own(inst.id)
    return {"pageId": f"{inst.id}/host", "url": inst.url, "title": inst.title, "route": use, "own": own, **extra,
            "ms": round((time.monotonic() - started) * 1000)}


async def arrived(registry: Any, before: set[str], origin: str, timeout: float, route: str) -> Instance:
    """The first tab of `origin` that registers live after `before` (bounded by `timeout`)."""
    deadline = time.monotonic() + max(0.5, timeout)
    while True:
        changed = registry.changed
        for inst in registry.instances.values():
            if inst.id not in before and inst.live and tab_origin(inst) == origin:
                return inst
        left = deadline - time.monotonic()
        if left <= 0:
            where = ("The window opened in the human's browser" if route == "extension"
                     else "The browser opened on the bridge's desktop")
            raise errors.BridgeError(
                f"{where}, but no page client of {origin} connected from it within {timeout:g} s. "
                + ("The extension attaches the client to enabled sites only: check the site is enabled in its popup."
                   if route == "extension" else "A browser on the bridge's desktop has no extension: the app must "
                   "load the client itself (the Vite/webpack plugin or the script tag).")
                + " Its window is still open; page_list shows it if it connects later.", code="not_connected")
        try:
            await asyncio.wait_for(changed.wait(), left)
        except TimeoutError:
            pass


TOOLS = [Tool(page_open, acting("Open a tab of your own", destructive=False),
              output=obj("title:?str", "url:?str", "pid:int", pageId="str", route="str", own="bool", ms="num"))]
