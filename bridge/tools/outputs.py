"""How a tool's answer schema is written (each tool's own is on its row, `Tool.output`), sent as `outputSchema` in
tools/list.

A page tool's answer is its command's result (bridge/pages/commands.py) plus the pageId (`of_page`); the others are
written with `obj`. Each schema names the fields that are always there (required) and those that may be (optional);
answers may carry more than a schema names, so a client validating against it never fails on a field added later.

The bridge does not validate its own answers on the hot path; clients do (the official SDKs validate structured
content against outputSchema), and tests/inmemory/test_outputs.py plus every e2e call through the official client
check them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from bridge.pages import commands as m
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
