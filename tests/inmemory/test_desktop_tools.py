"""The desktop_* family through the official MCP client, over the fake desktop (tests/inmemory/fake_desktop.py) the
desktop_backend setting names by import string: every tool in the table is called, every answer is checked against
its outputSchema, and each call's effect is read back from the fake's model."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from bridge.desktop import why_unavailable
from bridge.tools.desktop import TOOLS
from tests.inmemory.fake_desktop import TITLE_MAX, FakeDesktop
from tests.inmemory.harness import Bridge, assert_shape, bridge, eventually, settings, text_of

pytestmark = pytest.mark.anyio

FAKE = "tests.inmemory.fake_desktop:FakeDesktop"
NOTES = {"window": "Notes"}
TITLE = {"target": {"role": "text", "name": "Title"}, **NOTES}
ADD = {"target": {"role": "button", "name": "Add"}, "window": "Counter"}


class Desk:
    """A bridge with the fake desktop: calls that check each answer against the tool's outputSchema and note which
    tools were called."""

    def __init__(self, b: Bridge, schemas: dict[str, Any]) -> None:
        self.b, self.schemas, self.called = b, schemas, set()

    @property
    def fake(self) -> FakeDesktop:
        backend = self.b.state.desktop.backend
        assert isinstance(backend, FakeDesktop), backend
        return backend

    async def call(self, tool: str, args: dict[str, Any] | None = None) -> Any:
        self.called.add(tool)
        return await self.b.call(tool, args)

    async def result(self, tool: str, args: dict[str, Any] | None = None) -> Any:
        """A call that must succeed, its structured content valid for the tool's outputSchema; the whole result."""
        out = await self.call(tool, args)
        assert not out.is_error, text_of(out)
        Draft202012Validator(self.schemas[tool]).validate(out.structured_content)
        return out

    async def ok(self, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        return (await self.result(tool, args)).structured_content

    async def error(self, tool: str, args: dict[str, Any], code: str) -> str:
        return assert_shape(await self.call(tool, args), code)

    async def human_click(self, x: int, y: int) -> None:
        """The human clicks on the display (on the desktop worker, where the backend lives)."""
        await self.b.state.desktop.run(lambda fake: fake.human_click(x, y))


@asynccontextmanager
async def desktop(tmp: Path, **overrides: Any) -> AsyncIterator[Desk]:
    allow = ["fake-editor", "chromium"]
    async with bridge(tmp, desktop_enabled=True, desktop_backend=FAKE, desktop_allow=allow, **overrides) as b:
        listed = (await b.client.list_tools()).tools
        d = Desk(b, {t.name: t.output_schema for t in listed if t.name.startswith("desktop_")})
        await d.ok("desktop_status")  # starts the fake
        yield d


def center(node: dict[str, Any]) -> tuple[int, int]:
    bounds = node["bounds"]
    return bounds["x"] + bounds["width"] // 2, bounds["y"] + bounds["height"] // 2


async def test_the_import_string_serves_the_family_and_a_wrong_one_says_why(tmp_path: Path):
    assert why_unavailable(settings(tmp_path, desktop_enabled=True, desktop_backend=FAKE)) is None
    why = why_unavailable(settings(tmp_path, desktop_enabled=True, desktop_backend="tests.nowhere:Desk"))
    assert why is not None and "'tests.nowhere:Desk' (the desktop_backend setting) cannot load" in why
    async with desktop(tmp_path) as d:
        assert set(d.schemas) == {t.name for t in TOOLS}
        status = await d.ok("desktop_status")
        assert status["backend"] == FAKE and status["mode"] == "private" and status["input"] == "allowed"


async def test_every_desktop_tool_acts_on_the_fake_desktop(tmp_path: Path):
    async with desktop(tmp_path) as d:
        fake = d.fake
        listed = await d.ok("desktop_list_windows")
        notes = fake.by_title("Notes").id
        assert listed["count"] == 3 and listed["active"] == notes
        assert {w["title"] for w in listed["windows"]} == {"Notes", "Counter", "Legacy"}
        apps = await d.ok("desktop_list_apps")
        assert sorted(a["argv"][0] for a in apps["launched"]) == ["fake-counter", "fake-notes"]
        assert [o["windows"][0]["title"] for o in apps["others"]] == ["Legacy"]

        tree = await d.result("desktop_accessibility_tree", NOTES)
        assert "push button 'Save'" in text_of(tree)
        assert [n["name"] for n in tree.structured_content["nodes"]][:3] == ["Notes", "Title", "Save"]
        found = await d.ok("desktop_find_elements", {"target": {"role": "button", "name": "Save"}, **NOTES})
        assert found["count"] == 1 and found["matches"][0]["ref"] == fake.node("Save").ref
        missing = await d.ok("desktop_find_elements", {"target": {"role": "button", "name": "Sav"}, **NOTES})
        assert missing["count"] == 0 and "Save" in str(missing["nearest"])

        # the click reaches the fake button, by the pointer and by its accessible action
        clicked = await d.ok("desktop_click", ADD)
        assert (clicked["method"], clicked["input"]) == ("accessibility", "pointer")
        assert fake.node("Add", "Counter").presses == 1 and fake.node("Count: 1", "Counter")
        assert ("click", *center(clicked["element"]), "left", 1, ()) in fake.input
        acted = await d.ok("desktop_click", {**ADD, "method": "accessibility"})
        assert acted["input"] == "action" and fake.node("Add", "Counter").presses == 2

        # typed text is read back from the field
        typed = await d.ok("desktop_type_text", {"value": "hello", **TITLE})
        assert typed["verified"] is True and typed["value"] == "hello" == fake.node("Title").value
        await d.ok("desktop_click", {"target": {"role": "button", "name": "Save"}, **NOTES})
        waited = await d.ok("desktop_wait_for_element", {"target": {"role": "label", "name": "Saved: hello"}, **NOTES})
        assert waited["count"] == 1 and waited["matches"][0]["name"] == "Saved: hello"
        replaced = await d.ok("desktop_type_text", {"value": "bye", "replace": True, **TITLE})
        assert replaced["value"] == "bye" and ("keys", "ctrl+a") in fake.input
        by_action = await d.ok("desktop_type_text", {"value": "!", "method": "accessibility", **TITLE})
        assert by_action["input"] == "action" and fake.node("Title").value == "bye!"

        await d.ok("desktop_double_click", {"x": 755, "y": 149})
        assert ("click", 755, 149, "left", 2, ()) in fake.input and fake.node("Add", "Counter").presses == 2
        right = await d.ok("desktop_right_click", {"ref": fake.node("Save").ref})
        assert right["button"] == "right" and fake.input[-1][3] == "right"
        await d.ok("desktop_drag", {"start": {"x": 10, "y": 10}, "end": {"x": 50, "y": 60}})
        assert fake.input[-1] == ("drag", 10, 10, 50, 60, "left")
        scrolled = await d.ok("desktop_scroll", {"window": "Counter", "dy": 2})
        assert scrolled["dy"] == 2 and fake.input[-1][0] == "scroll"
        pressed = await d.ok("desktop_press_key", {"key": "Return", **ADD})
        assert pressed["keys"] == "Return" and fake.node("Add", "Counter").presses == 3
        await d.ok("desktop_hotkey", {"keys": "ctrl+shift+t", **NOTES})
        assert fake.input[-1] == ("keys", "ctrl+shift+t")

        # the screen: a PNG of the window, and its words (the fake's OCR)
        shot = await d.result("desktop_screenshot", NOTES)
        png = base64.b64decode(shot.content[0].data)
        assert png.startswith(b"\x89PNG") and shot.structured_content["width"] == 480
        read = await d.ok("desktop_read_text", {"window": "Legacy"})
        assert read["text"] == "Press Launch" and read["method"] == "ocr"
        by_text = await d.ok("desktop_click", {"text": "Launch", "window": "Legacy"})
        assert by_text["method"] == "ocr" and fake.input[-1][:3] == ("click", 182, 601)
        fallback = await d.ok("desktop_click", {"target": {"role": "button", "name": "Launch"}, "window": "Legacy"})
        assert fallback["method"] == "ocr" and "no accessibility tree" in fallback["fallback"]

        # windows
        activated = await d.ok("desktop_activate_window", {"window": "Counter"})
        assert activated["activated"] and (await d.ok("desktop_list_windows"))["active"] == activated["window"]["id"]
        resized = await d.ok("desktop_resize_window", {"window": "Counter", "width": 50})
        assert resized["window"]["frame"]["width"] == 120 and "note" in resized  # the fake's minimum width
        state = await d.ok("desktop_window_state", {"window": "Legacy", "state": "minimized"})
        assert state["window"]["state"] == ["minimized"]
        arranged = await d.ok("desktop_arrange_windows", {"layout": "side_by_side", "windows": ["Notes", "Counter"]})
        assert [w["frame"]["x"] for w in arranged["windows"]] == [0, 640]

        # apps
        launched = await d.ok("desktop_launch_app", {"argv": ["fake-editor", "a.txt"]})
        pid = launched["app"]["pid"]
        assert launched["accessible"] is True and launched["windows"][0]["title"] == "fake-editor"
        seen = await d.ok("desktop_wait_for_window", {"title": "fake-editor", "state": "active"})
        assert seen["windows"][0]["pid"] == pid
        opened = await d.ok("desktop_open_url", {"url": "http://localhost:5173/"})
        assert opened["browser"] == "chromium" and opened["windows"][0]["title"] == "http://localhost:5173/"
        quit_ = await d.ok("desktop_quit_app", {"pid": pid})
        assert quit_["how"] == "closed" and quit_["exited"] is True

        # a recording keeps the human's click and leaves the bridge's own out
        started = await d.ok("desktop_start_recording", {"maxSeconds": 30})
        assert started["recording"] is True
        await d.ok("desktop_click", {"target": {"role": "button", "name": "Clear"}, **NOTES})
        await d.human_click(*center((await d.ok("desktop_find_elements", {
            "target": {"role": "button", "name": "Save"}, **NOTES}))["matches"][0]))
        steps = (await d.ok("desktop_stop_recording"))["steps"]
        clicks = [s for s in steps if s["tool"] == "desktop_click"]
        assert [c["arguments"]["target"]["name"] for c in clicks] == ["Save"], steps
        assert fake.node("Save").presses == 2 and fake.node("Clear").presses == 1

        assert d.called == {t.name for t in TOOLS}, {t.name for t in TOOLS} - d.called


async def test_a_field_that_keeps_less_than_was_typed_answers_not_typed(tmp_path: Path):
    async with desktop(tmp_path) as d:
        text = "a title longer than the field keeps"
        body = await d.error("desktop_type_text", {"value": text, **TITLE}, "not_typed")
        held = text[:TITLE_MAX]
        assert d.fake.node("Title").value == held and f"the field holds {held!r}" in body
        assert "keyboard" in body and "action" in body  # both methods were tried before answering



async def test_a_field_the_app_transforms_answers_ok_with_what_it_made_of_the_text_and_is_not_typed_again(
        tmp_path: Path):
    """A calculator-like field (it evaluates `6*7=` to `42`): the keys arrived and the field changed, but not to the
    text sent: ok, `transformed`, the value, a note not to type again; one try, no retry by the other method."""
    async with desktop(tmp_path) as d:
        field = d.fake.node("Title")
        field.transform = lambda held: "42" if held.endswith("=") else held
        out = await d.ok("desktop_type_text", {"value": "6*7=", **TITLE})
        assert out["value"] == "42" and out["transformed"] is True and out["verified"] is False, out
        assert "transformed the input" in out["note"] and "retried" not in out, out
        assert field.value == "42"
        assert [i for i in d.fake.input if i[0] in ("type", "set_text")] == [("type", "6*7=")]

async def test_the_human_taking_an_attached_desktop_refuses_input_until_handed_back(tmp_path: Path):
    async with desktop(tmp_path, desktop_display=":99") as d:
        desk = d.b.state.desktop
        await d.error("desktop_click", ADD, "consent_required")
        desk.grant_consent(True, 60)
        await d.ok("desktop_click", ADD)
        assert d.fake.node("Add", "Counter").presses == 1
        await d.human_click(10, 10)
        body = await d.error("desktop_click", ADD, "user_control")
        assert "the human's button input" in body and d.fake.node("Add", "Counter").presses == 1
        status = await d.ok("desktop_status")
        assert status["control"]["holder"] == "human" and status["input"] == "the human has the desktop"
        assert (await d.ok("desktop_list_windows"))["count"] == 3  # reading still works
        item = await eventually(lambda: next((i for i in d.b.state.inbox.items if i.kind == "desktop_control"), None))
        assert "The human took the desktop" in item.text
        desk.control.hand_back()
        await d.ok("desktop_click", ADD)
        assert d.fake.node("Add", "Counter").presses == 2


FAILURES: list[tuple[str, dict[str, Any], str]] = [
    ("desktop_click", {}, "bad_arguments"),
    ("desktop_click", {"ref": "fake:999"}, "stale_ref"),
    ("desktop_click", {"target": {"role": "button", "name": "Nope"}, **NOTES}, "no_match"),
    ("desktop_activate_window", {"window": "Nope"}, "no_window"),
    ("desktop_type_text", {"value": "x", "method": "accessibility"}, "bad_arguments"),
    ("desktop_accessibility_tree", {"window": "Legacy"}, "no_accessibility"),
    ("desktop_launch_app", {"argv": ["rm", "-rf", "/"]}, "not_allowed"),
    ("desktop_quit_app", {}, "bad_arguments"),
    ("desktop_stop_recording", {}, "not_recording"),
    ("desktop_wait_for_window", {"title": "Nope", "timeout": 0.1}, "wait_timeout"),
    ("desktop_click", {"x": "left"}, "invalid_argument"),
]


async def test_a_desktop_failure_has_the_one_error_shape(tmp_path: Path):
    """One desktop for every case (each failure leaves the fake as it was)."""
    async with desktop(tmp_path) as d:
        for tool, args, code in FAILURES:
            await d.error(tool, args, code)
        assert d.fake.input == []  # none of them sent input
