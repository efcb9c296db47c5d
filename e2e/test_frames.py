"""Frames: a host page with a same-origin iframe, a nested iframe and a cross-origin iframe, plus frames that
come and go after load. Each same-origin frame is its own pageId; the cross-origin one is listed but refused."""

from __future__ import annotations

from tests.support import ok, text_of, wait_until

#: Connected, and every same-origin frame has a running client.
READY = ("window.__dbg && window.__dbg.status().state === 'connected' && "
         "window.__dbg.status().frames.length === {n} && "
         "window.__dbg.status().frames.every(f => f.crossOrigin || f.ready)")

WHERE = "({path: location.pathname, who: document.getElementById('who').textContent, title: document.title})"


def _open_frames_page(context, dev):
    """index.html with its 'cross' iframe on http://localhost:PORT (another origin than 127.0.0.1:PORT)."""
    other = dev.url("", host="localhost").rstrip("/")
    page = context.new_page()
    page.goto(dev.url("/index.html?other=" + other))
    page.wait_for_function(READY.format(n=3), timeout=10000)
    host = page.evaluate("window.__dbg.pageId")
    return page, host, host.split("/")[0], other


def _rows(mcp, inst: str) -> dict[str, dict]:
    return {r["pageId"]: r for r in mcp.pages() if r["pageId"].startswith(inst + "/")}


def _by_path(rows: dict[str, dict], suffix: str) -> dict:
    found = [r for r in rows.values() if r["url"].endswith(suffix)]
    assert len(found) == 1, (suffix, rows)
    return found[0]


def test_page_list_shows_every_frame_with_its_parent_and_cross_origin_flag(context, dev, mcp):
    _, host, inst, other = _open_frames_page(context, dev)
    rows = wait_until(lambda: (r := _rows(mcp, inst)) and len(r) == 4 and all(x["title"] or x["crossOrigin"] for x in r.values()) and r,
                      what="host and 3 frames listed")

    assert rows[host]["parent"] is None and rows[host]["crossOrigin"] is False
    assert rows[host]["url"].startswith(dev.url("/index.html"))
    assert rows[host]["title"] == "host page" and rows[host]["state"] == "live"

    same = _by_path(rows, "/frame.html")
    nested = _by_path(rows, "/nested.html")
    cross = _by_path(rows, "/plain.html")
    assert same["parent"] == host and same["crossOrigin"] is False and same["title"] == "frame page"
    assert nested["parent"] == same["pageId"] and nested["crossOrigin"] is False and nested["title"] == "nested page"
    assert cross["parent"] == host and cross["crossOrigin"] is True
    assert cross["origin"] == other and cross["url"] == other + "/plain.html"
    assert len({same["pageId"], nested["pageId"], cross["pageId"]}) == 3


def test_page_exec_runs_in_the_host_the_iframe_and_the_nested_iframe(context, dev, mcp):
    _, host, inst, _ = _open_frames_page(context, dev)
    rows = wait_until(lambda: (r := _rows(mcp, inst)) and len(r) == 4 and r, what="frames listed")
    same, nested = _by_path(rows, "/frame.html")["pageId"], _by_path(rows, "/nested.html")["pageId"]

    answers = mcp.call_many([("page_exec", {"pageId": pid, "code": WHERE}) for pid in (host, same, nested)])
    got = [ok(a) for a in answers]
    assert [g["pageId"] for g in got] == [host, same, nested]
    assert got[0]["result"] == {"path": "/index.html", "who": "host", "title": "host page"}
    assert got[1]["result"] == {"path": "/frame.html", "who": "frame", "title": "frame page"}
    assert got[2]["result"] == {"path": "/nested.html", "who": "nested", "title": "nested page"}

    # Each frame is its own window: a global set in one frame is not seen by the others.
    ok(mcp.call("page_exec", {"pageId": same, "code": "window.__mark = 'in-frame'"}))
    marks = [ok(a)["result"] for a in mcp.call_many(
        [("page_exec", {"pageId": pid, "code": "window.__mark || null"}) for pid in (host, same, nested)])]
    assert marks == [None, "in-frame", None]

    # Named commands run in the frame too.
    loc = ok(mcp.call("page_exec", {"pageId": nested, "command": "location"}))["result"]
    assert loc["href"] == dev.url("/nested.html") and loc["title"] == "nested page"


def test_page_exec_on_a_cross_origin_frame_says_it_is_cross_origin_and_what_to_do(context, dev, mcp):
    _, _, inst, other = _open_frames_page(context, dev)
    rows = wait_until(lambda: (r := _rows(mcp, inst)) and len(r) == 4 and r, what="frames listed")
    cross = _by_path(rows, "/plain.html")["pageId"]

    res = mcp.call("page_exec", {"pageId": cross, "code": "document.title"})
    assert res.is_error
    text = text_of(res)
    assert "cross_origin_frame" in text
    assert cross in text and other in text
    assert "Load the client in that page" in text and "page_list" in text


def test_an_iframe_added_after_load_is_listed_and_answers_then_disappears_when_removed(context, dev, mcp):
    page, host, inst, _ = _open_frames_page(context, dev)
    before = set(wait_until(lambda: (r := _rows(mcp, inst)) and len(r) == 4 and r, what="frames listed"))

    # While it loads, the new iframe sits on its initial about:blank: it is same-origin all along, never listed
    # as cross-origin (which would make page_exec refuse it).
    loading = page.evaluate("""async () => {
        const f = document.createElement('iframe');
        f.id = 'late'; f.src = '/nested.html?late=1';
        document.body.appendChild(f);
        await null;  // the client's MutationObserver has rescanned
        return window.__dbg.status().frames.filter(x => x.parent === 'host' && !/frame|plain/.test(x.url));
    }""")
    assert len(loading) == 1 and loading[0]["crossOrigin"] is False, loading
    page.wait_for_function(READY.format(n=4), timeout=10000)
    rows = wait_until(lambda: (r := _rows(mcp, inst)) and len(r) == 5 and r, what="the late iframe listed")
    (late,) = set(rows) - before
    rows = wait_until(lambda: (r := _rows(mcp, inst)) and r[late]["url"].endswith("?late=1") and r,
                      what="the late iframe's url listed")
    assert rows[late]["parent"] == host and rows[late]["crossOrigin"] is False
    assert rows[late]["url"].endswith("/nested.html?late=1")

    got = ok(mcp.call("page_exec", {"pageId": late, "code": "location.search + ' ' + document.title"}))
    assert got == {**got, "pageId": late, "result": "?late=1 nested page"}

    page.evaluate("document.getElementById('late').remove()")
    rows = wait_until(lambda: (r := _rows(mcp, inst)) and late not in r and r, what="the removed iframe unlisted")
    assert set(rows) == before

    gone = mcp.call("page_exec", {"pageId": late, "code": "1"})
    assert gone.is_error and "unknown_page" in text_of(gone)
    assert f"no frame '{late.split('/')[1]}'" in text_of(gone) and "page_list" in text_of(gone)
    # The rest of the page is untouched.
    assert ok(mcp.call("page_exec", {"pageId": host, "code": "document.querySelectorAll('iframe').length"}))["result"] == 2
