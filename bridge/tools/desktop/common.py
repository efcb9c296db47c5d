"""What the desktop_* tool modules share: argument types, running a call on the desktop worker, targets and windows."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from bridge.desktop import actions
from bridge.desktop.actions import Target
from bridge.desktop.errors import DesktopError
from bridge.desktop.selectors import Selector
from bridge.desktop.service import Desktop
from bridge.errors import BridgeError

WindowArg = Annotated[int | str | None, Field(
    description="A window: its id from desktop_list_windows, or text of its title (an exact title wins; it must pick "
                "one window). Ids are reused once a window closes: add pid to be sure.")]
PidArg = Annotated[int | None, Field(description="A process id: only that app's windows and elements.")]
TargetArg = Annotated[Selector | None, Field(
    description="The element by selector, e.g. {\"role\": \"button\", \"name\": \"OK\"}; scope it with window or "
                "pid. Several matches without ordinal fail as `ambiguous`, none as `no_match` (both list "
                "candidates).")]
RefArg = Annotated[str | None, Field(description="An element ref (e.g. a12@kq) from desktop_find_elements or "
                                                 "desktop_accessibility_tree. A stale ref fails; it never hits "
                                                 "another element.")]
TextArg = Annotated[str | None, Field(description="Visible text found by OCR (for apps with no accessibility tree, "
                                                  "e.g. Tk); slower and approximate.")]
XArg = Annotated[int | None, Field(description="Screen x (last resort; a screenshot's pixel + its origin).")]
YArg = Annotated[int | None, Field(description="Screen y (last resort).")]
OrdinalArg = Annotated[int | None, Field(description="Pick one of several matches (0 = first, -1 = last).")]
Method = Annotated[Literal["auto", "pointer", "accessibility"], Field(
    description="auto: a pointer click on the element (its accessible action if the pointer cannot reach it); "
                "pointer: only a pointer click; accessibility: only its accessible action (no pointer).")]
Timeout = Annotated[float, Field(gt=0, le=120, description="Seconds to wait at most.")]


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
