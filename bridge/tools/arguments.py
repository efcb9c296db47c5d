"""Tool arguments as the agent sees them: the compact input schema `tools/list` shows, and one `[invalid_argument]`
error (field, what was expected, what came, what to do) for any argument that does not fit it."""

from __future__ import annotations

import json
import types
import typing
from typing import Any

from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from pydantic import ValidationError

from bridge.errors import BridgeError

NULL = {"type": "null"}


def compact(schema: Any) -> Any:
    """The JSON schema pydantic writes, without what tells a model nothing: titles, `anyOf [X, null]` with a null
    default (an optional X), `additionalProperties: true`, defaults of `false` and `null`. What stays is what validation
    checks, in the portable subset (no `type` arrays: tests/inmemory/test_schema_portability.py)."""
    if isinstance(schema, list):
        return [compact(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: v for k, v in schema.items() if k != "title"}
    any_of = out.get("anyOf")
    if isinstance(any_of, list) and NULL in any_of and "default" in out and out["default"] is None:
        rest = [s for s in any_of if s != NULL]
        del out["default"]
        del out["anyOf"]
        out = {**(rest[0] if len(rest) == 1 else {"anyOf": rest}), **out}
    # `anyOf [{type: a}, {type: b}]` stays as it is: `type: [a, b]` is shorter, but a single-type dialect (the OpenAPI
    # subset of Gemini's function declarations) refuses it, and runs hand these schemas to model APIs as they are
    if out.get("additionalProperties") is True:
        del out["additionalProperties"]
    if out.get("default", 0) is None or (out.get("type") == "boolean" and out.get("default") is False):
        del out["default"]  # an absent flag is off, an absent value is absent: saying so costs every tool list
    for key in ("properties", "$defs"):
        if isinstance(out.get(key), dict):
            out[key] = {name: compact(s) for name, s in out[key].items()}
    for key in ("items", "anyOf", "oneOf"):
        if key in out:
            out[key] = compact(out[key])
    return out


class Arguments(FuncMetadata):
    """The SDK's argument handling for one tool (validated by the same pydantic model, so the same errors), with
    what it redoes on every call worked out once at registration: which arguments may arrive as JSON text (the SDK
    decodes a string sent for a list or object parameter, a workaround for clients that do so), and each field's
    name on the way out.

    A string parameter (`code`, `selector`, `pageId`, a `Literal` of strings) is never decoded: the SDK decodes any
    string sent for a parameter not annotated plain `str`, so `str | None` lost `code: "[1, 2]"` (a valid JavaScript
    expression: refused as not a string) and `code: "null"` (arrived as None)."""

    @classmethod
    def of(cls, meta: FuncMetadata) -> Arguments:
        return cls(arg_model=meta.arg_model, output_schema=meta.output_schema, output_model=meta.output_model,
                   wrap_output=meta.wrap_output)

    def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
        decodable = _plan(self.arg_model)[0]
        out = data
        for key, value in data.items():
            if isinstance(value, str) and key in decodable:
                try:
                    parsed = json.loads(value)
                except (ValueError, RecursionError):
                    continue
                if not isinstance(parsed, str | int | float):  # as the SDK: "5" and '"x"' stay the text sent
                    out = dict(out) if out is data else out
                    out[key] = parsed
        return out

    def validate_arguments(self, arguments_to_validate: dict[str, Any]) -> dict[str, Any]:
        model = self.arg_model.model_validate(self.pre_parse_json(arguments_to_validate))
        values = model.__dict__
        return {out: values[name] for name, out in _plan(self.arg_model)[1]}


#: Per argument model: (the input keys whose string values may be JSON text, [(field name, name passed)]).
_PLANS: dict[type, tuple[frozenset[str], list[tuple[str, str]]]] = {}


def _plan(model: type) -> tuple[frozenset[str], list[tuple[str, str]]]:
    plan = _PLANS.get(model)
    if plan is None:
        fields = model.model_fields  # type: ignore[attr-defined]
        decodable = frozenset(key for name, info in fields.items() if not _text_only(info.annotation)
                              for key in (name, info.alias or name))
        plan = _PLANS[model] = (decodable, [(name, info.alias or name) for name, info in fields.items()])
    return plan


def _text_only(annotation: Any) -> bool:
    """True for str, a Literal of strings, and either of them optional (or Annotated)."""
    if annotation is str:
        return True
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _text_only(typing.get_args(annotation)[0])
    if origin is typing.Literal:
        return all(isinstance(v, str) for v in typing.get_args(annotation))
    if origin is typing.Union or origin is types.UnionType:
        rest = [a for a in typing.get_args(annotation) if a is not type(None)]
        return bool(rest) and all(_text_only(a) for a in rest)
    return False


def type_list(schema: dict[str, Any]) -> dict[str, Any]:
    """`anyOf [{type: a}, {type: b}]` written as `type: [a, b]` (the same schema, shorter)."""
    simple = schema.get("anyOf")
    if isinstance(simple, list) and all(isinstance(s, dict) and list(s) == ["type"] for s in simple):
        return {"type": [s["type"] for s in simple], **{k: v for k, v in schema.items() if k != "anyOf"}}
    return schema


def unknown(tool: str, arguments: dict[str, Any], schema: dict[str, Any]) -> BridgeError | None:
    """An error for argument names the tool does not have (a typo would otherwise be ignored silently)."""
    known = list(schema.get("properties", {}))
    extra = [k for k in arguments if k not in known]
    if not extra:
        return None
    close = {k: n for k in extra for n in known if n.lower() == k.lower()}
    hint = "".join(f" Did you mean {n!r} for {k!r}?" for k, n in close.items())
    return BridgeError(f"{tool} has no argument {', '.join(repr(k) for k in extra)}.{hint} Its arguments: "
                       f"{', '.join(known) or 'none'}. Fix the call and send it again.", code="invalid_argument")


def invalid(tool: str, exc: ValidationError, schema: dict[str, Any]) -> BridgeError:
    """One line per bad field: `tool.field: expected …, got …`, then what to do."""
    props = schema.get("properties", {})
    lines = []
    seen: set[str] = set()
    for err in exc.errors(include_url=False):
        loc = [str(p) for p in err["loc"]]
        field = loc[0] if loc else ""
        # A union reports one error per branch (`x.int`, `x.str`); say it once, about the field.
        if field in seen and len(loc) > 1 and not loc[1].isdigit():
            continue
        seen.add(field)
        path = ".".join([field, *[p for p in loc[1:] if p.isdigit() or p not in TYPE_WORDS]])
        lines.append(f"{tool}.{path}: {expected(err, props.get(field, {}))}")
    return BridgeError("; ".join(lines) + f". Fix the argument{'s' if len(lines) > 1 else ''} and call {tool} again.",
                       code="invalid_argument")


#: The branch names pydantic adds to a union error's location (`depth.int`): not part of the field's path.
TYPE_WORDS = {"int", "float", "str", "bool", "list", "dict", "none", "literal", "function-after", "json-or-python"}

KIND = {"int": "an integer", "float": "a number", "bool": "true or false", "string": "a string", "str": "a string",
        "list": "a list", "dict": "an object", "model": "an object"}


def expected(err: Any, prop: dict[str, Any]) -> str:
    """What the field takes (its type, allowed values or range) and what came instead."""
    kind, ctx = err["type"], err.get("ctx") or {}
    got = "" if kind == "missing" else f", got {show(err.get('input'))}"
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return f"is not a key it takes{got}"
    allowed = allowed_values(prop)
    if kind in ("literal_error", "enum"):
        return f"expected one of {allowed or ctx.get('expected')}{got}"
    for word, name in KIND.items():
        if kind.startswith(word + "_") and kind.endswith(("_type", "_parsing", "_from_float")):
            return f"expected {name}{' (' + allowed + ')' if allowed else ''}{got}"
    bounds = {"greater_than": "> {gt:g}", "greater_than_equal": "≥ {ge:g}", "less_than": "< {lt:g}",
              "less_than_equal": "≤ {le:g}"}
    if kind in bounds:
        return f"must be {allowed or bounds[kind].format(**ctx)}{got}"
    return f"{err['msg'][0].lower()}{err['msg'][1:]}{got}"


def allowed_values(prop: dict[str, Any]) -> str:
    """`one of 'a', 'b'`, `0 to 64`, or '' when the schema says nothing more than the type."""
    options = [prop, *prop.get("anyOf", [])]
    for p in options:
        if "enum" in p:
            return ", ".join(repr(v) for v in p["enum"])
        items = p.get("items", {})
        if isinstance(items, dict) and "enum" in items:
            return "a list of " + ", ".join(repr(v) for v in items["enum"])
    low = prop.get("minimum", prop.get("exclusiveMinimum"))
    high = prop.get("maximum", prop.get("exclusiveMaximum"))
    if low is not None and high is not None:
        return f"above {low:g} and at most {high:g}" if "exclusiveMinimum" in prop else f"{low:g} to {high:g}"
    if low is not None:
        return f"{'>' if 'exclusiveMinimum' in prop else '≥'} {low:g}"
    if high is not None:
        return f"≤ {high:g}"
    return ""


def show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:79] + "…"
