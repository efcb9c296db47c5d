"""What every tool's structured content holds: one output schema per tool, sent as `outputSchema` in tools/list.

A page tool's answer is its command's result (bridge/page_commands.py) plus the pageId; the others are written
here with `obj`. Each schema names the fields that are always there (required) and those that may be (optional);
answers may carry more than a schema names, so a client validating against it never fails on a field added later.

The bridge does not validate its own answers on the hot path; clients do (the official SDKs validate structured
content against outputSchema), and tests/inmemory/test_outputs.py plus every e2e call through the official client
check them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from bridge import page_commands as m
from bridge.tools.arguments import type_list

TYPES = {"str": {"type": "string"}, "int": {"type": "integer"}, "num": {"type": "number"},
         "bool": {"type": "boolean"}, "list": {"type": "array"}, "obj": {"type": "object"}, "any": {}}


def field(kind: str | dict[str, Any]) -> dict[str, Any]:
    """`str`, `int`, `num`, `bool`, `list`, `obj`, `any`; `?str` may be null; or a schema as is."""
    if isinstance(kind, dict):
        return kind
    if kind.startswith("?"):
        inner = TYPES[kind[1:]]
        return {"type": [inner["type"], "null"]} if inner else {}
    return TYPES[kind]


def obj(*optional: str, **fields: str | dict[str, Any]) -> dict[str, Any]:
    """An object schema: `fields` are required, the names in `optional` (written `name:type`) may be absent."""
    props = {k: field(v) for k, v in fields.items()}
    for spec in optional:
        name, _, kind = spec.partition(":")
        props[name] = field(kind or "any")
    out: dict[str, Any] = {"type": "object", "properties": props}
    if fields:
        out["required"] = list(fields)
    return out


def plain(schema: Any) -> Any:
    """`schema` without titles, descriptions and defaults (the models' docstrings are for readers of the code, not
    every tools/list). Unlike input schemas, `X | null` stays: an answer's null is a value (file: null, unknown)."""
    if isinstance(schema, list):
        return [plain(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    return type_list({k: plain(v) for k, v in schema.items()
                      if k not in ("title", "default") and (k != "description" or not isinstance(v, str))})


def of_page(model: type[BaseModel], *optional: str, **fields: str | dict[str, Any]) -> dict[str, Any]:
    """A page tool's answer: `model` (a command's result) plus pageId, and any extra fields the tool adds."""
    schema = plain(m.wire_schema(model, "serialization"))
    extra = obj(*optional, pageId="str", **fields)
    schema["properties"] = {**extra["properties"], **schema.get("properties", {})}
    schema["required"] = [*extra["required"], *schema.get("required", [])]
    return schema


WINDOW = "?obj"
POINTER = obj("x:num", "y:num", "method:str", input="str")

OUTPUTS: dict[str, dict[str, Any]] = {
    "page_list": obj("nextCursor:str", "hint:str", "cluster:any", pages={"type": "array", "items": obj(
        "title:?str", "url:?str", "origin:?str", "verified:bool", "channel:?str", pageId="str", parent="?str",
        state="str")}),
    "page_exec": obj(pageId="str", result="any", ms="num"),
    "page_snapshot": of_page(m.SnapshotResult, "file:str", "resource:str"),
    "page_find": of_page(m.FindResult),
    "page_act": of_page(m.ActResult),
    "page_wait": of_page(m.WaitResult),
    "page_navigate": obj("note:str", pageId="str", reloaded="bool", url="str", title="str"),
    "page_console": of_page(m.ConsoleResult),
    "page_network": of_page(m.NetworkResult),
    "page_source": of_page(m.SourceResult),
    "page_highlight": of_page(m.HighlightResult),
    "page_screenshot": obj("width:int", "height:int", "scale:num", "devicePixelRatio:num", pageId="str",
                           bytes="int", format="str", ms="num"),
    # page data under `from: page` (bridge/tools/webmcp.py); the rest of an answer is the page's
    "page_tools": obj(pageId="str", tools="list"),
    "page_call_tool": obj("result:any", pageId="str", tool="str"),
    "user_ask": obj("answer:any", "via:str", "status:str", "hint:str", questionId="str"),
    "user_notify": obj(pageId="str", shown="bool"),
    "inbox": obj("note:str", "dropped:str", "marked:obj", items="list", cursor="int", more="bool"),
    "desktop_status": obj("inputUntil:num", "recording:?obj", backend="str", mode="str", input="str"),
    "desktop_launch_app": obj("accessible:any", "note:str", app="obj", windows="list"),
    "desktop_open_url": obj("windows:list", url="str", browser="str"),
    "desktop_list_apps": obj(launched="list", others="list"),
    "desktop_quit_app": obj("exited:any", "app:any", pid="?int", how="str", closedWindows="list"),
    "desktop_list_windows": obj("count:int", "active:any", windows="list", screen="any"),
    "desktop_window_state": obj(window=WINDOW),
    "desktop_activate_window": obj(window=WINDOW, activated="bool"),
    "desktop_resize_window": obj("note:str", window=WINDOW, requested="obj"),
    "desktop_arrange_windows": obj(layout="str", windows="list"),
    "desktop_click": POINTER,
    "desktop_double_click": POINTER,
    "desktop_right_click": POINTER,
    "desktop_drag": POINTER,
    "desktop_scroll": obj("dx:num", "dy:num", input="str"),
    "desktop_type_text": obj("typed:int", "value:any", "verified:bool", input="str"),
    "desktop_press_key": obj("keys:str", "repeat:int", input="str"),
    "desktop_hotkey": obj("keys:str", "repeat:int", input="str"),
    "desktop_screenshot": obj("window:any", width="int", height="int", scale="num", origin="obj", bytes="int",
                              format="str", ms="num"),
    "desktop_read_text": obj("lines:list", "words:list", text="str", origin="obj", size="obj", method="str",
                             ms="num"),
    "desktop_accessibility_tree": obj(nodes="list", count="int", truncated="bool", scope="str"),
    "desktop_find_elements": obj("nearest:any", count="int", matches="list", scope="str"),
    "desktop_wait_for_window": obj(state="str", windows="list", ms="num"),
    "desktop_wait_for_element": obj("note:str", state="str", matches="list", count="int", ms="num"),
    "desktop_start_recording": obj(recording="bool", maxSeconds="num", since="num"),
    "desktop_stop_recording": obj("file:str", "errors:list", "replay:str", steps="list", count="int"),
}
