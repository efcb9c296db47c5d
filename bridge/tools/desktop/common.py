"""What the desktop_* tool modules share: argument types, running a call on the desktop worker, targets and windows."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, WithJsonSchema

from bridge.desktop import actions
from bridge.desktop.actions import Target
from bridge.desktop.errors import DesktopError
from bridge.desktop.selectors import Selector
from bridge.desktop.service import Desktop
from bridge.errors import BridgeError

# Terse on purpose: these are repeated in every desktop tool that takes a target (the tools/list budget); the errors
# (ambiguous, no_match, stale_ref…) say the rest when it matters.
#: A selector as tools/list shows it: one line instead of the model's schema (repeated in every tool that takes a
#: target); arguments are still validated against the Selector model.
Sel = Annotated[Selector, WithJsonSchema({
    "type": "object", "description": "{role, name|name_contains|name_regex, states, within, ordinal}"})]
WindowArg = int | str | None  # an id from desktop_list_windows or a title (that tool's description says so)
PidArg = int | None
TargetArg = Sel | None
RefArg = Annotated[str | None, Field(description="From desktop_find_elements.")]
TextArg = Annotated[str | None, Field(description="Visible text (OCR).")]
XArg = int | None
YArg = int | None
OrdinalArg = Annotated[int | None, Field(description="0 first, -1 last.")]
Method = Annotated[Literal["auto", "pointer", "accessibility"], Field(
    description="accessibility: its action, no pointer.")]
Timeout = Annotated[float, Field(gt=0, le=120)]


async def run(desk: Desktop, fn: Any, timeout: float = 60, acting_as: str | None = None) -> Any:
    """fn(backend) on the desktop worker (started on first use); `acting_as` names input that needs consent on an
    attached display. Toolkit failures come back as desktop_error."""
    if acting_as is not None:
        desk.require_input(acting_as)
    try:
        return await desk.run(fn, timeout, acting=acting_as is not None)
    except BridgeError:
        raise
    except TimeoutError:
        raise DesktopError(f"The desktop did not answer within {timeout:g} s.", code="desktop_timeout") from None
    except Exception as exc:  # a toolkit error: say what it was rather than fail without a code
        raise DesktopError(f"The desktop backend failed: {type(exc).__name__}: {exc}. desktop_status shows whether "
                           "the desktop still runs.", code="desktop_error") from exc


def target_of(target: Selector | None = None, ref: str | None = None, text: str | None = None,
              x: int | None = None, y: int | None = None, window: int | str | None = None, pid: int | None = None,
              ordinal: int | None = None) -> Target:
    return Target(ref=ref, selector=target, text=text, x=x, y=y, window=window, pid=pid, ordinal=ordinal)


def one_window(b: Any, window: int | str | None, pid: int | None) -> dict[str, Any]:
    """The window named by id/title, or a pid's only window."""
    if window is not None:
        w = actions.resolve_window(b, window, pid)
        assert w is not None
        return w
    if pid is not None:
        mine = actions.windows_of(b, pid)
        if len(mine) == 1:
            return mine[0]
        raise DesktopError(f"pid {pid} has {len(mine)} windows: {[actions.window_row(w) for w in mine]}. Pass window.",
                           code="ambiguous_window" if mine else "no_window")
    raise DesktopError("Say which window: window (id or title) or pid.", code="bad_arguments")


def fresh(b: Any, wid: int) -> dict[str, Any] | None:
    return next((w for w in b.windows() if w["id"] == wid), None)


def overlap(a: dict[str, int], b: dict[str, int]) -> bool:
    return a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"] and \
        a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]
