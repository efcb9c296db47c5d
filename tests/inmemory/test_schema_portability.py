"""Every tool's input schema is one every model API takes as a function declaration, as the MCP Inspector's
schema-portability lint reads it (core/json/schemaLint.ts in @modelcontextprotocol/inspector 2.12.0): no `type`
written as an array (`["string", "null"]`: a single-type dialect such as Gemini's OpenAPI-subset function
declarations refuses it), no schema without a validation keyword (`{}`), no bare `true`, no remote `$ref`; an object
at the root. Runs hand these schemas to model APIs as they are. (Output schemas keep `type: [X, "null"]`: a model
API is never given them, and their own budget has no room for the longer form.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.inmemory.harness import bridge

pytestmark = pytest.mark.anyio

FAKE = "tests.inmemory.fake_desktop:FakeDesktop"


#: The keywords that constrain a value (a schema with none of them accepts anything: the Inspector's
#: `untyped-schema`).
CONSTRAINING = {"type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
                "maxLength", "minLength", "pattern", "format", "contentMediaType", "contentEncoding", "contentSchema",
                "maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties",
                "required", "dependentRequired", "allOf", "anyOf", "oneOf", "not", "items", "prefixItems", "contains",
                "additionalItems", "unevaluatedItems", "properties", "patternProperties", "additionalProperties",
                "unevaluatedProperties", "propertyNames", "dependentSchemas", "dependencies", "$ref", "$dynamicRef",
                "$recursiveRef"}


def findings(schema: Any, path: str, keyword: str | None = None) -> list[str]:
    """What the Inspector's lint flags in one schema and its subschemas: `type-union`, `untyped-schema`,
    `boolean-schema`, `remote-ref`."""
    if isinstance(schema, bool):
        return [] if keyword == "additionalProperties" else [f"{path}: a bare {schema} (boolean-schema)"]
    if not isinstance(schema, dict):
        return []
    out: list[str] = []
    if isinstance(schema.get("type"), list):
        out.append(f"{path}: type is an array {schema['type']} (type-union)")
    if isinstance(schema.get("$ref"), str) and not schema["$ref"].startswith("#"):
        out.append(f"{path}: $ref outside the document (remote-ref)")
    constrains = bool(CONSTRAINING & set(schema)) or ("if" in schema and ("then" in schema or "else" in schema))
    if not constrains and keyword != "not":
        out.append(f"{path}: no validation keyword (untyped-schema)")
    for key in ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas"):
        for name, sub in (schema.get(key) or {}).items():
            out += findings(sub, f"{path}.{name}", key)
    for key in ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"):
        if key in schema and not (key == "items" and isinstance(schema[key], list)):
            out += findings(schema[key], f"{path}.{key}", key)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for i, sub in enumerate(schema.get(key) or []):
            out += findings(sub, f"{path}.{key}[{i}]", key)
    return out


async def test_every_tools_input_schema_passes_the_portability_lint(tmp_path: Path):
    async with bridge(tmp_path, desktop_enabled=True, desktop_backend=FAKE, model_url="http://127.0.0.1:9/v1") as b:
        tools = (await b.client.list_tools()).tools
    names = {t.name for t in tools}
    assert {"page_act", "page_exec", "agent_run", "desktop_click"} <= names  # every family is checked
    flagged = [f for t in tools for f in findings(t.input_schema, t.name)]
    assert not flagged, "\n".join(flagged)
    assert all(t.input_schema.get("type") == "object" for t in tools)


def test_the_lint_flags_what_the_inspector_flags():
    assert findings({"type": "object", "properties": {"a": {"type": ["string", "null"]}, "b": {"description": "x"},
                                                      "c": True, "d": {"$ref": "https://x/s.json"}}}, "t") == [
        "t.a: type is an array ['string', 'null'] (type-union)", "t.b: no validation keyword (untyped-schema)",
        "t.c: a bare True (boolean-schema)", "t.d: $ref outside the document (remote-ref)"]
