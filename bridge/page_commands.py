"""What each page command takes and gives back: one params model and one result model per command.

`protocol.COMMAND_TABLE` pairs them with each command's policy. The bridge checks params on every path an agent
can reach a command by (page_exec(command=…), page_act, batches); results are what the client in inject/ returns,
mirrored there by JSDoc types generated from these models (`scripts/gen_docs.py` writes inject/command_types.js,
a test fails when it is stale) and checked against a real browser by e2e/test_command_models.py.

Params forbid unknown fields (a typo would otherwise be ignored in the page). Results allow more fields than they
name (a newer client may add one), so what is named here is what a caller can rely on.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

Text = Annotated[str, Field(max_length=100_000)]
Target = Annotated[str, Field(max_length=4096)]


def wire_schema(model: type[BaseModel], mode: Literal["validation", "serialization"]) -> dict[str, Any]:
    """A model's JSON schema as the wire spells it (aliases: `from`): params are read (validation), results written
    (serialization). What the generated JSDoc, docs/commands.md and the tools' outputSchema are made from."""
    return model.model_json_schema(by_alias=True, mode=mode)


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class _Result(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


# ---- params ---------------------------------------------------------------------------------------------------

class NoParams(_Params):
    """ping, frames, location: nothing to give."""


class EvalParams(_Params):
    """eval: the code the human is shown in the consent prompt is the code that runs, so it must be a string."""

    code: Annotated[str, Field(strict=True, max_length=1_000_000)]
    args: Any = None


class SnapshotParams(_Params):
    root: Target | None = None
    depth: Annotated[int, Field(ge=0, le=64)] = 64
    interactiveOnly: bool = False
    maxChars: Annotated[int, Field(ge=200, le=200_000)] = 12_000
    boxes: bool = False
    detailed: bool = False
    includeFrames: bool = False
    #: The whole tree, kept in the page and read in slices (part + from).
    full: bool = False
    part: Annotated[str, Field(max_length=200)] | None = None
    from_: Annotated[int, Field(ge=0, alias="from")] = 0


class FindParams(_Params):
    text: Text | None = None
    regex: Text | None = None
    exact: bool = False
    role: Annotated[str, Field(max_length=100)] | None = None
    selector: Target | None = None
    limit: Annotated[int, Field(ge=1, le=200)] = 20


ActionName = Literal["click", "dblclick", "hover", "focus", "fill", "type", "select", "check", "uncheck", "press",
                     "scroll", "drag"]


class ActionParams(_Params):
    """One action: a target (ref, selector or text, with nth), what to do, and what it needs."""

    action: ActionName | None = None
    ref: Target | None = None
    selector: Target | None = None
    text: Text | None = None
    nth: Annotated[int, Field(ge=0)] | None = None
    exact: bool | None = None
    value: Text | float | None = None
    key: Annotated[str, Field(max_length=200)] | None = None
    to: Target | None = None
    dx: float | None = None
    dy: float | None = None
    trusted: bool | None = None


class ActParams(ActionParams):
    """act: one action, or a batch in `actions`. A dry run must be a real boolean (it decides whether consent is
    asked, and the page reads it with JavaScript truthiness)."""

    actions: Annotated[list[ActionParams], Field(max_length=200)] | None = None
    snapshot: bool = False
    dryRun: Annotated[bool, Field(strict=True)] = False


class ConsoleParams(_Params):
    since: Annotated[int, Field(ge=0)] = 0
    level: Annotated[str, Field(max_length=200)] | None = None
    limit: Annotated[int, Field(ge=1, le=500)] = 100
    stack: bool = False


class WaitParams(_Params):
    text: Text | None = None
    exact: bool = False
    selector: Target | None = None
    ref: Target | None = None
    url: Target | None = None
    networkIdle: bool = False
    state: Literal["visible", "hidden", "enabled"] = "visible"
    #: Seconds.
    timeout: Annotated[float, Field(ge=0, le=120)] = 5


class NavigateParams(_Params):
    """navigate: what the consent rule looks at (another origin?) is what the page does."""

    action: Literal["goto", "back", "forward", "reload"] = "goto"
    url: Annotated[str, Field(strict=True, max_length=8192)] | None = None


class NetworkParams(_Params):
    since: Annotated[int, Field(ge=0)] = 0
    filter: Target | None = None
    failedOnly: bool = False
    id: int | None = None
    resources: bool = False
    limit: Annotated[int, Field(ge=1, le=300)] = 50


class ElementParams(_Params):
    """source, screenshot: one element (default: the human's pick for source, the viewport for screenshot)."""

    ref: Target | None = None
    selector: Target | None = None


class HighlightParams(_Params):
    refs: Annotated[list[Target], Field(max_length=200)] | None = None
    selector: Target | None = None
    label: Annotated[str, Field(max_length=1000)] | None = None
    durationMs: Annotated[int, Field(ge=0, le=600_000)] = 0
    clear: bool = False


class AskParams(_Params):
    """ask: show a question card in the tab (or take one down with `dismiss`)."""

    questionId: Annotated[str, Field(max_length=100)] | None = None
    kind: Literal["confirm", "choice", "text", "pick", "consent"] | None = None
    text: Text | None = None
    choices: Annotated[list[Annotated[str, Field(max_length=1000)]], Field(max_length=50)] | None = None
    detail: Text | None = None
    dismiss: Annotated[str, Field(max_length=100)] | None = None


class NotifyParams(_Params):
    message: Text
    level: Literal["info", "success", "warning", "error"] = "info"
    durationMs: Annotated[int, Field(ge=0, le=600_000)] = 5000


# ---- results --------------------------------------------------------------------------------------------------

class PingResult(_Result):
    pong: bool
    frameId: str
    url: str
    time: int


class FrameRow(_Result):
    """A frame as the tab's host lists it (a frame's own `frames` lists its iframes: src, crossOrigin)."""

    frameId: str | None = None
    parent: str | None = None
    url: str | None = None
    src: str | None = None
    title: str | None = None
    origin: str | None = None
    crossOrigin: bool
    ready: bool | None = None


class FramesResult(RootModel[list[FrameRow]]):
    pass


class LocationResult(_Result):
    href: str
    origin: str
    title: str
    readyState: str


class EvalResult(RootModel[Any]):
    """Whatever the code returned, rendered to JSON (DOM nodes, Maps, cycles and errors made readable)."""


class SnapshotResult(_Result):
    snapshotId: str
    tree: str
    url: str | None = None
    title: str | None = None
    elements: int | None = None
    shown: int | None = None
    truncated: bool | None = None
    #: A whole tree (full): its length, where this slice starts, and where the next does (null at the end).
    chars: int | None = None
    from_: int | None = Field(None, alias="from")
    next: int | None = None


class FindMatch(_Result):
    ref: str
    role: str
    name: str
    context: str


class FindResult(_Result):
    matches: list[FindMatch]
    total: int
    more: bool


class ActDone(_Result):
    action: str
    ref: str | None = None
    trusted: bool | None = None


class ActResult(_Result):
    """An act: what was done and the snapshot lines that changed; a dry run: which actions would submit a form."""

    done: list[ActDone] | None = None
    changed: list[str] | None = None
    submits: list[str] | None = None
    url: str | None = None
    tree: str | None = None
    untrusted: str | None = None
    trusted: str | None = None


class ConsoleEntry(_Result):
    seq: int
    level: str
    text: str
    time: int
    url: str | None = None
    stack: str | None = None


class ConsoleResult(_Result):
    entries: list[ConsoleEntry]
    cursor: int
    more: bool


class WaitResult(_Result):
    met: bool
    ms: int
    value: Any = None


class NavigateResult(_Result):
    from_: str = Field(alias="from")
    action: str
    to: str | None = None
    #: The document that took the command (the one it registered as); a new document registers as another.
    doc: str | None = None
    #: Whether the navigation replaces this document (None: the page cannot tell, e.g. back without Navigation API).
    crossDocument: bool | None = None


class NetworkRow(_Result):
    id: int | None = None
    kind: str
    method: str | None = None
    url: str
    status: int | None = None
    ms: float | None = None
    size: int | None = None
    error: str | None = None
    pending: bool | None = None


class NetworkResult(_Result):
    """A list (requests, cursor, more, inflight, and resources when asked), or one request in full (id)."""

    requests: list[NetworkRow] | None = None
    cursor: int | None = None
    more: bool | None = None
    inflight: int | None = None
    resources: list[dict[str, Any]] | None = None
    request: dict[str, Any] | None = None


class SourceResult(_Result):
    ref: str
    element: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    via: str
    components: list[str]
    note: str | None = None
    #: Where a position taken from a stack is in the compiled code ({url, line, column}); the page adds that
    #: module's source map ({url, sources, sourceRoot, mappings}) for the bridge to map it back (bridge/sourcemap.py).
    generated: dict[str, Any] | None = None


class HighlightResult(_Result):
    highlighted: list[str] | None = None
    cleared: int | None = None


class AskResult(_Result):
    shown: str | None = None
    dismissed: str | None = None


class NotifyResult(_Result):
    shown: bool


class SelectionResult(_Result):
    """The text the human has selected in the page (in a field too), and the element it is in (null: none)."""

    text: str
    ref: str | None = None
    element: str | None = None


class ScreenshotResult(_Result):
    """The tab's PNG as base64 with its size (a same-origin frame gives its box for the host to capture)."""

    data: str | None = None
    width: int | None = None
    height: int | None = None
    scale: float | None = None
    devicePixelRatio: float | None = None
    #: The captured area in CSS px, the viewport, and whether the image was scaled down to fit the result cap.
    box: dict[str, float] | None = None
    viewport: dict[str, float] | None = None
    scaledDown: bool | None = None
    frameBox: dict[str, float] | None = None


# ---- WebMCP: the tools a page registers (bridge/webmcp.py reads them, bridge/tools/webmcp.py offers them) ------

class WebToolRow(_Result):
    """One tool as the page's client describes it: its input schema as JSON text (the bridge parses and bounds
    it), or an error saying why the client left it out."""

    name: str
    title: str | None = None
    description: str | None = None
    schema_: str | None = Field(None, alias="schema")
    annotations: dict[str, Any] | None = None
    frameId: str | None = None
    error: dict[str, str] | None = None


class ToolsResult(_Result):
    """tools: the WebMCP tools of this document (a frame) or of the tab, every same-origin frame's (the host)."""

    api: Any = None
    tools: list[WebToolRow]
    total: int


class ToolCallParams(_Params):
    """tool_call: one of this document's WebMCP tools, by name, with arguments its schema accepts."""

    name: Annotated[str, Field(min_length=1, max_length=64)]
    arguments: dict[str, Any] = Field(default_factory=dict)


class ToolCallResult(_Result):
    """What executeTool() answered, as JSON text (or plain text)."""

    json_: str = Field(alias="json")
