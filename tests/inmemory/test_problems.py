"""What broke, through the page tools against a fake page: errors at the lines written (maps asked once per module),
acts, waits and navigations that report what they broke, errors grouped with the act before each, a repro skill."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bridge.shared.seam import open_store
from bridge.skills.service import SkillService
from tests.inmemory.harness import SHAPES, bridge
from tests.unit.test_stacks import PART

pytestmark = pytest.mark.anyio

STACK = ("TypeError: boom\n    at priceWithTax (http://localhost:5173/src/cart.ts:3:17)\n"
         "    at dispatch (http://localhost:5173/node_modules/.vite/deps/react-dom_client.js?v=1:9:5)")
ERROR = {"seq": 4, "level": "error", "text": "Uncaught TypeError: boom", "time": 1000, "url": "http://localhost:5173/",
         "stack": STACK, "act": 2}
ACTS = [{"seq": 1, "doc": "d1", "url": "http://localhost:5173/", "t": 1, "action": "click", "frame": "host",
         "label": 'click button "Add apple"', "target": {"role": "button", "name": "Add apple", "selector": "#a"}},
        {"seq": 2, "doc": "d1", "url": "http://localhost:5173/", "t": 2, "action": "click", "frame": "host",
         "label": 'click button "Add"', "target": {"role": "button", "name": "Add", "selector": "#add"}}]
FAILED = {"id": 3, "method": "POST", "url": "http://localhost:5173/api/cart", "status": 404}


def page(answers: dict[str, Any]):
    """A fake page answering each command from `answers` (a value, or a function of the params)."""
    async def handler(frame: dict[str, Any]) -> dict[str, Any]:
        answer = answers.get(frame["command"], SHAPES.get(frame["command"], {}))
        # a copy, as a real page's answer arrives (the bridge may change what it was handed)
        return {"ok": True, "result": json.loads(json.dumps(answer(frame["params"]) if callable(answer) else answer))}
    return handler


async def test_an_errors_top_frame_is_at_the_line_written_and_its_map_is_asked_for_once(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page(page({"console": {"entries": [ERROR], "cursor": 4, "more": False},
                                    "maps": {"maps": {PART["url"]: PART}, "hot": 0}}))
        out = await b.ok("page_console", {"level": "error"})
        (entry,) = out["entries"]
        assert entry["at"] == "priceWithTax (src/cart.ts:3:18)" and entry["code"] == "return product.price * line.qty"
        assert entry["generated"] == "src/cart.ts:3:17" and "stack" not in entry and "act" not in entry
        full = (await b.ok("page_console", {"level": "error", "stack": True}))["entries"][0]
        assert full["stack"] == ["at priceWithTax (src/cart.ts:3:18) [compiled src/cart.ts:3:17]",
                                 "… 1 library frame (node_modules, runtime)"]
        (asked,) = conn.execs("maps")  # once for both calls; the library module never
        assert asked["params"]["urls"] == [PART["url"]]


async def test_without_a_map_the_error_keeps_its_compiled_position_and_says_so(tmp_path: Path):
    async with bridge(tmp_path) as b:
        b.connect_page(page({"console": {"entries": [ERROR], "cursor": 4, "more": False},
                             "maps": {"maps": {PART["url"]: None}, "hot": 0}}))
        entry = (await b.ok("page_console", {}))["entries"][0]
        assert entry["at"] == "priceWithTax (src/cart.ts:3:17)" and "no source map" in entry["note"]


async def test_an_act_names_the_errors_and_failed_requests_it_caused_in_one_line_each(tmp_path: Path):
    act = {"done": [{"action": "click", "ref": "e2", "effect": "threw", "why": "The click reached a handler that threw"}],
           "changed": [], "errors": [ERROR],
           "failed": [FAILED, {"id": 4, "method": "GET", "url": "https://api.example.com/v1/x", "error": "Failed to fetch"}]}
    async with bridge(tmp_path) as b:
        b.connect_page(page({"act": act, "maps": {"maps": {PART["url"]: PART}}}))
        out = await b.ok("page_act", {"action": "click", "ref": "e2"})
        assert out["errors"] == ["Uncaught TypeError: boom at priceWithTax (src/cart.ts:3:18)"]
        assert out["failed"] == ["POST /api/cart 404", "GET https://api.example.com/v1/x Failed to fetch"]
        assert out["done"][0]["effect"] == "threw"
        via_exec = await b.ok("page_exec", {"command": "act", "params": {"action": "click", "ref": "e2"}})
        assert via_exec["result"]["failed"][0] == "POST /api/cart 404"


async def test_a_wait_and_a_navigation_report_what_broke_meanwhile(tmp_path: Path):
    async with bridge(tmp_path) as b:
        conn = b.connect_page(page({
            "wait": {"met": True, "ms": 3, "failed": [{**FAILED, "status": 500}]},
            "navigate": {"from": "http://localhost:5173/", "action": "goto", "doc": "d1", "crossDocument": False,
                         "mark": {"console": 3, "net": 2, "doc": "d1"}},
            "problems": {"errors": [{**ERROR, "stack": None, "text": "Unhandled rejection: Error: no"}]},
        }))
        assert (await b.ok("page_wait", {"text": "Saved"}))["failed"] == ["POST /api/cart 500"]
        out = await b.ok("page_navigate", {"url": "#cart", "waitUntil": "commit"})
        assert out["errors"] == ["Unhandled rejection: Error: no"]
        assert conn.execs("problems")[0]["params"] == {"console": 3, "net": 2, "doc": "d1"}


async def test_errors_are_grouped_by_top_frame_with_the_act_before_and_saved_as_a_repro_skill(tmp_path: Path):
    entries = [ERROR, {**ERROR, "seq": 6, "time": 2000},
               {"seq": 7, "level": "error", "text": "Uncaught Error: other", "time": 2500, "act": None}]
    async with bridge(tmp_path) as b:
        b.state.skills = SkillService(b.state, open_store(b.state.settings))
        b.connect_page(page({"console": {"entries": entries, "cursor": 7, "more": False, "acts": ACTS},
                             "maps": {"maps": {PART["url"]: PART}}}))
        out = await b.ok("page_console", {"errors": True})
        first, other = out["errors"]
        assert (first["at"], first["count"], first["first"], first["last"]) == ("priceWithTax (src/cart.ts:3:18)", 2,
                                                                                1000, 2000)
        assert first["after"] == 'click button "Add"' and "no act" in other["after"]
        refused = await b.error("page_console", {"errors": True, "saveSkill": "cart-crash"})  # the newest has no act
        assert refused.startswith("[no_repro]")
        b.connect_page(page({"console": {"entries": entries[:2], "cursor": 6, "more": False, "acts": ACTS},
                             "maps": {"maps": {PART["url"]: PART}}}), port=5174, url="http://localhost:5174/")
        saved = await b.ok("page_console", {"pageId": "5174/host", "errors": True, "saveSkill": "cart-crash"})
        assert saved["saved"]["name"] == "cart-crash" and saved["saved"]["steps"] == 3
        skill = await b.state.skills.skills.get("cart-crash")
        assert [s.action for s in skill.steps] == ["goto", "click", "click"]
        assert skill.steps[2].target.name == "Add" and skill.until.error == "priceWithTax (src/cart.ts:3:18)"
        bad = await b.error("page_console", {"pageId": "5174/host", "saveSkill": "x"})
        assert bad.startswith("[invalid_argument]") and "errors: true" in bad
