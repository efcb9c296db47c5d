"""A page tool's input schema flattened from its command's params model (bridge/pages/commands.py), so each param
is defined once: its type, constraints, default and description.

A handler takes the model as one parameter (`params: FindParams`); the tool offers every field of the model as its
own argument (the bridge's plumbing is in the command's wire model, never here), and `build` makes the model from
what the agent sent. Two things are shown
differently from the model, not checked differently: length caps are left out of the schema (sanity limits, checked
when the model is built), and a nested model (page_act's `actions`) is shown as a plain object.
"""

from __future__ import annotations

import inspect
import types
import typing
from typing import Annotated, Any, Union

import annotated_types
from pydantic import BaseModel, Field, ValidationError
from pydantic.fields import FieldInfo

from bridge.pages.commands import Params
from bridge.tools.arguments import invalid


def params_model(handler: Any) -> tuple[str, type[BaseModel]] | None:
    """The handler's parameter typed with a page command's params model (name, model), if it has one."""
    hints = typing.get_type_hints(handler)
    for name in inspect.signature(handler).parameters:
        hint = hints.get(name)
        if isinstance(hint, type) and issubclass(hint, Params):
            return name, hint
    return None


def parameters(model: type[BaseModel]) -> list[inspect.Parameter]:
    """The model's fields as a tool's keyword parameters."""
    out = []
    for name, info in model.model_fields.items():
        meta = [m for m in info.metadata if not isinstance(m, annotated_types.MaxLen)]
        if info.description:
            meta.append(Field(description=info.description))
        shown = _shown(info.annotation)
        annotation = Annotated[(shown, *meta)] if meta else shown  # type: ignore[valid-type]
        default = inspect.Parameter.empty if info.is_required() else info.default
        out.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation))
    return out


def build(tool: str, model: type[BaseModel], args: dict[str, Any]) -> BaseModel:
    """The model from a tool's arguments (a None is an argument not given), or an invalid_argument error."""
    try:
        return model.model_validate({k: v for k, v in args.items() if v is not None})
    except ValidationError as exc:
        raise invalid(tool, exc, {}) from None


def _shown(tp: Any) -> Any:
    """`tp` as the input schema shows it: length caps left out, a nested model as an object."""
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return dict[str, Any]
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Annotated:
        meta = [m for m in (_uncapped(m) for m in tp.__metadata__) if m is not None]
        inner = _shown(args[0])
        return Annotated[(inner, *meta)] if meta else inner  # type: ignore[valid-type]
    if origin is Union or origin is types.UnionType:
        return Union[tuple(_shown(a) for a in args)]  # type: ignore[return-value]
    if origin is list:
        return list[_shown(args[0])]  # type: ignore[misc]
    return tp


def _uncapped(meta: Any) -> Any:
    if isinstance(meta, annotated_types.MaxLen):
        return None
    if isinstance(meta, FieldInfo):
        kept = [m for m in meta.metadata if not isinstance(m, annotated_types.MaxLen)]
        if not kept and meta.description is None:
            return None
        return Field(description=meta.description, **_constraints(kept)) if kept else Field(description=meta.description)
    return meta


def _constraints(metadata: list[Any]) -> dict[str, Any]:
    """Field() keywords for the annotated-types constraints a FieldInfo holds (MinLen, Ge, Le, Strict, …)."""
    out: dict[str, Any] = {}
    for m in metadata:
        for key in ("min_length", "ge", "gt", "le", "lt", "strict", "pattern"):
            if hasattr(m, key):
                out[key] = getattr(m, key)
    return out
