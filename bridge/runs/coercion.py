"""Arguments a model sent, checked against the tool's input schema before the call. Only unambiguous coercions
are applied (a number written as a string where a number is wanted, "true"/"false" where a boolean is, an enum
value in the wrong case), each said as `coerced action "Click" → "click"`; anything else is left for the schema
check, which answers `[invalid_argument]` (no silent fixes)."""

from __future__ import annotations

import json
import re
from typing import Any

NUMBER = re.compile(r"^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$")


def coerce(args: dict[str, Any], schema: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """(args with the unambiguous coercions applied, one note per coercion)."""
    props = schema.get("properties") or {}
    out, notes = dict(args), []
    for key, value in args.items():
        prop = props.get(key)
        if not isinstance(prop, dict):
            continue
        fixed = _one(value, prop)
        if fixed is not _NO:
            out[key] = fixed
            notes.append(f"coerced {key} {json.dumps(value, ensure_ascii=False)} → "
                         f"{json.dumps(fixed, ensure_ascii=False)}")
    return out, notes


_NO = object()


def _types(prop: dict[str, Any]) -> set[str]:
    kinds = prop.get("type")
    found = set(kinds) if isinstance(kinds, list) else {kinds} if isinstance(kinds, str) else set()
    for branch in prop.get("anyOf") or prop.get("oneOf") or []:
        if isinstance(branch, dict):
            found |= _types(branch)
    return found


def _enum(prop: dict[str, Any]) -> list[Any]:
    values = list(prop.get("enum") or [])
    for branch in prop.get("anyOf") or prop.get("oneOf") or []:
        if isinstance(branch, dict):
            values += _enum(branch)
    return values


def _one(value: Any, prop: dict[str, Any]) -> Any:
    kinds = _types(prop)
    enum = _enum(prop)
    if isinstance(value, str):
        if enum and value not in enum:
            same = [v for v in enum if isinstance(v, str) and v.lower() == value.strip().lower()]
            return same[0] if len(same) == 1 else _NO
        if "string" in kinds or not kinds:
            return _NO
        text = value.strip()
        if kinds & {"integer", "number"} and NUMBER.match(text):
            number = float(text)
            if "integer" in kinds and number.is_integer() and "." not in text and "e" not in text.lower():
                return int(text)
            if "number" in kinds:
                return int(text) if re.fullmatch(r"-?\d+", text) else number
            return _NO
        if "boolean" in kinds and text in ("true", "false"):
            return text == "true"
    return _NO
