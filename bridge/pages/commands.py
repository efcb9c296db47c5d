"""What each page command takes and gives back: one params model and one result model per command, and the
command's row in `COMMAND_TABLE` (its policy).

A command's params are defined here once: a tool's input schema is flattened from its params model
(bridge/tools/flatten.py), and every path an agent can reach a command by (the tool, page_exec(command=…), page_act's
batches) goes through `parse_params`, so the page always gets them checked and with their defaults filled in (the
client re-defaults nothing). Results are what the client in inject/ returns,
mirrored there by JSDoc types generated from these models (`scripts/gen_docs.py` writes inject/command_types.js,
a test fails when it is stale) and checked against a real browser by e2e/test_command_models.py.

Params forbid unknown fields (a typo would otherwise be ignored in the page). Results allow more fields than they
name (a newer client may add one), so what is named here is what a caller can rely on.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError

from bridge import errors

#: Length caps (on texts, targets and lists) are sanity limits against a runaway argument: checked on every path,
#: but not listed in a tool's input schema (bridge/tools/flatten.py), since every tools/list is paid for.
Text = Annotated[str, Field(max_length=100_000)]
Target = Annotated[str, Field(max_length=4096)]
#: The descriptions a tool's input schema shows (flattened from these models), written once for every command.
Ref = Annotated[Target | None, Field(description="From page_snapshot/page_find.")]
Selector = Annotated[Target | None, Field(description="CSS selector.")]
Since = Annotated[int, Field(ge=0, description="Last `cursor`.")]


def wire_schema(model: type[BaseModel], mode: Literal["validation", "serialization"]) -> dict[str, Any]:
    """A model's JSON schema as the wire spells it (aliases: `from`): params are read (validation), results written
    (serialization). What the generated JSDoc, docs/commands.md and the tools' outputSchema are made from."""
    return model.model_json_schema(by_alias=True, mode=mode)


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class _Result(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


# ---- params ---------------------------------------------------------------------------------------------------

class NoParams(Params):
    """ping, frames, location: nothing to give."""


class EvalParams(Params):
    """eval: the code the human is shown in the consent prompt is the code that runs, so it must be a string."""

    code: Annotated[str, Field(strict=True, max_length=1_000_000)]
    args: Any = None


class SnapshotParams(Params):
    root: Annotated[Target | None, Field(description="Ref or CSS selector.")] = None
    depth: Annotated[int, Field(ge=0, le=64)] = 64
    interactiveOnly: bool = False
    maxChars: Annotated[int, Field(ge=200, le=200_000)] = 12_000
    boxes: Annotated[bool, Field(description="x,y,w,h in CSS px.")] = False
    detailed: bool = False
    includeFrames: Annotated[bool, Field(description="Inline same-origin frames (refs f0:e3@ab).")] = False


class SnapshotWire(SnapshotParams):
    """snapshot as the page gets it: page_snapshot's plumbing for a whole tree (its toFile) besides the agent's."""

    #: The whole tree, kept in the page and read in slices (part + from).
    full: bool = False
    part: Annotated[str, Field(max_length=200)] | None = None
    from_: Annotated[int, Field(ge=0, alias="from")] = 0


class FindParams(Params):
    #: One element (a snapshot's cut line names its ref): its whole text.
    ref: Target | None = None
    text: Annotated[Text | None, Field(description="In name or text, any case.")] = None
    regex: Annotated[Text | None, Field(description="JS regex, any case.")] = None
    exact: bool = False
    role: Annotated[Annotated[str, Field(max_length=100)] | None, Field(description="ARIA role.")] = None
    selector: Selector = None
    limit: Annotated[int, Field(ge=1, le=200)] = 20


ActionName = Literal["click", "dblclick", "hover", "focus", "fill", "type", "select", "check", "uncheck", "press",
                     "scroll", "drag", "upload"]


class ActionParams(Params):
    """One action: a target (ref, selector or text, with nth), what to do, and what it needs."""

    action: ActionName | None = None
    ref: Ref = None
    selector: Annotated[Target | None, Field(description="CSS.")] = None
    text: Annotated[Text | None, Field(description="Visible text.")] = None
    nth: Annotated[int, Field(ge=0)] | None = None
    exact: bool | None = None
    value: Annotated[Text | float | None, Field(description="Text, option or scroll px.")] = None
    key: Annotated[Annotated[str, Field(max_length=200)] | None, Field(description="Enter, Control+a.")] = None
    #: For drag: the ref or selector to drop on (or dx/dy: px to drag by, to pan a map or move a slider).
    to: Target | None = None
    #: For upload: paths of files under the bridge's --upload-dir, handed to a file input as if picked.
    files: Annotated[list[Annotated[str, Field(max_length=4096)]], Field(max_length=20)] | None = None
    #: For drag and scroll: px to move by (a drag without `to`: pan a map, move a slider).
    dx: float | None = None
    dy: float | None = None
    #: Real input (true), synthetic events only (false), or synthetic then real input when it changed nothing (auto);
    #: an action without it takes the call's.
    trusted: Literal["auto", True, False] | None = None
    force: bool | None = None


class Upload(Params):
    """One file the bridge read for an upload action (bridge/tools/page/upload.py), as the page's File gets it."""

    name: Annotated[str, Field(min_length=1, max_length=255)]
    type: Annotated[str, Field(max_length=200)] = ""
    data: str  # base64


class ActParams(ActionParams):
    """act, as an agent gives it (page_act, page_exec(command='act')): one action, or a batch in `actions`. A dry
    run must be a real boolean (it decides whether consent is asked, and the page reads it with JavaScript
    truthiness)."""

    actions: Annotated[Annotated[list[ActionParams], Field(max_length=200)] | None,
                       Field(description="Batch of {action, ref, ...}.")] = None
    #: A snapshot after the actions, in the answer.
    snapshot: bool = False
    #: Only say which actions would submit a form (nothing acts).
    dryRun: Annotated[bool, Field(strict=True)] = False
    #: Real input (true), synthetic only (false), or real input when synthetic did nothing (auto): docs/acting.md.
    trusted: Literal["auto", True, False] = "auto"
    #: Skip the actionability checks.
    force: bool = False


class ActWire(ActParams):
    """act as the page gets it: the agent's params plus the bridge's plumbing, which only the act pipeline
    (bridge/tools/page/act.py) fills in."""

    #: Seconds the actionability checks may wait, all actions together (set from the call's timeout).
    checkTimeout: Annotated[float, Field(ge=0, le=300)] = 5
    #: The bridge can send real input into this tab's window on its desktop (it resumes the act after).
    desktop: bool | None = None
    #: The token of an act that waited for desktop input, to finish it; `failed` says why the input was not sent.
    resume: Annotated[str, Field(max_length=40)] | None = None
    failed: Annotated[str, Field(max_length=2000)] | None = None
    #: The files of each upload action, by the action's place in the batch (the bridge reads them from `files`).
    uploads: Annotated[list[list[Upload] | None], Field(max_length=200)] | None = None


class ConsoleParams(Params):
    since: Since = 0
    level: Annotated[Annotated[str, Field(max_length=200)] | None, Field(description="E.g. error,warn.")] = None
    limit: Annotated[int, Field(ge=1, le=500)] = 100
    stack: Annotated[bool, Field(description="Whole mapped stacks.")] = False
    errors: Annotated[bool, Field(description="Group by top frame, with the act before each.")] = False
    #: The skill's name is checked where it is saved (bridge/skills/format.py check_name).
    saveSkill: Annotated[Annotated[str, Field(max_length=80)] | None,
                         Field(description="With errors: save the newest one's acts as a skill.")] = None


class ProblemsParams(Params):
    """problems: the errors and failed requests since a mark (`navigate` answers one; a new document counts its
    requests from its start)."""

    console: Annotated[int, Field(ge=0)] = 0
    net: Annotated[int, Field(ge=0)] = 0
    doc: Annotated[str, Field(max_length=100)] | None = None


class MapsParams(Params):
    """maps: the source maps of the modules an error's stack names (the bridge caches them: bridge/pages/stacks.py)."""

    urls: Annotated[list[Annotated[str, Field(max_length=4096)]], Field(max_length=50)]


class VitalsParams(Params):
    since: Since = 0


class WaitParams(Params):
    text: Annotated[Text | None, Field(description="Visible text.")] = None
    exact: bool = False
    selector: Selector = None
    ref: Ref = None
    url: Annotated[Target | None, Field(description="URL contains.")] = None
    networkIdle: Annotated[bool, Field(description="Nothing in flight for 500 ms.")] = False
    #: A failed update answers [update_failed] with its error at file:line (bridge/tools/page/dev.py).
    update: Annotated[int | None, Field(ge=0, description="Next hot update or reload after this `updates`.")] = None
    state: Literal["visible", "hidden", "enabled"] = "visible"
    #: Seconds (the call waits a little longer, for the answer to travel).
    timeout: Annotated[float, Field(gt=0, le=120)] = 10


class WaitWire(WaitParams):
    """wait as the page gets it: page_navigate's wait for the new document's load besides the agent's params."""

    #: The document's load (or DOMContentLoaded), then a quiet DOM (no mutation for 100 ms, at most 1 s).
    loadState: Literal["load", "domcontentloaded"] | None = None


class NavigateParams(Params):
    """navigate: what the consent rule looks at (another origin?) is what the page does."""

    action: Literal["goto", "back", "forward", "reload"] = "goto"
    url: Annotated[Annotated[str, Field(strict=True, max_length=8192)] | None,
                   Field(description="For goto; may be relative.")] = None
    #: What page_navigate waits for after the new document registers (the page does not read it).
    waitUntil: Literal["load", "domcontentloaded", "commit"] = "load"


class NetworkParams(Params):
    since: Since = 0
    filter: Annotated[Target | None, Field(description="URL contains.")] = None
    failedOnly: Annotated[bool, Field(description="Errors, status >= 400.")] = False
    id: Annotated[int | None, Field(description="One request in full.")] = None
    resources: Annotated[bool, Field(description="Also scripts, images, css.")] = False
    limit: Annotated[int, Field(ge=1, le=300)] = 50
    #: Include the dev server's own traffic (HMR sockets and pings, /@vite/, /@fs/, source modules, hot updates).
    devServer: bool = False


class ElementParams(Params):
    """source, screenshot: one element (default: the human's pick for source, the viewport for screenshot)."""

    ref: Ref = None
    selector: Selector = None


class ScreenshotParams(ElementParams):
    """screenshot: one element, or the viewport."""


class ScreenshotWire(ScreenshotParams):
    """screenshot as the page gets it: `desktop` asks for the box and viewport only, when the bridge cuts the
    pixels from its desktop."""

    desktop: bool | None = None


class ViewportParams(Params):
    """viewport: the tab's window geometry; `mark` puts a marker before the title (left out: takes it off) so the
    bridge can find the tab's browser window on its desktop."""

    mark: Annotated[str, Field(max_length=40)] | None = None


class OpenParams(Params):
    """open: a new window of the tab's own origin in the human's browser, through the extension (page_open)."""

    url: Annotated[str | None, Field(max_length=8000, description="Same origin (default: the page's).")] = None


class HighlightParams(Params):
    refs: Annotated[list[Target], Field(max_length=200)] | None = None
    selector: Annotated[Target | None, Field(description="CSS, at most 50.")] = None
    label: Annotated[str, Field(max_length=1000)] | None = None
    durationMs: Annotated[int, Field(ge=0, le=600_000, description="0 keeps it.")] = 0
    clear: Annotated[bool, Field(description="Remove all.")] = False


class AskParams(Params):
    """ask: show a question card in the tab (or take one down with `dismiss`)."""

    questionId: Annotated[str, Field(max_length=100)] | None = None
    kind: Literal["confirm", "choice", "text", "pick", "consent"] | None = None
    text: Text | None = None
    choices: Annotated[list[Annotated[str, Field(max_length=1000)]], Field(max_length=50)] | None = None
    detail: Text | None = None
    #: A choice card also offers a note field; its answer is then {choice, note} (a run's takeover).
    note: bool | None = None
    dismiss: Annotated[str, Field(max_length=100)] | None = None


class RecordParams(Params):
    """record: start (`on`) or stop recording what the human does in the tab; the page shows `name` in its panel."""

    on: Annotated[bool, Field(strict=True)]
    name: Annotated[str, Field(max_length=100)] | None = None


class NotifyParams(Params):
    message: Annotated[str, Field(min_length=1, max_length=2000)]
    level: Literal["info", "success", "warning", "error"] = "info"
    durationMs: Annotated[int, Field(ge=1000, le=120_000)] = 5000


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
    #: The element's whole rendered text when its name does not say it all (up to the answer's cap).
    text: str | None = None
    #: Characters of `text` left out over the cap.
    cut: int | None = None


class FindResult(_Result):
    matches: list[FindMatch]
    total: int
    more: bool


class ActDone(_Result):
    action: str
    ref: str | None = None
    trusted: bool | None = None
    #: The real input that did it (extension, desktop); left out for synthetic events.
    input: str | None = None
    #: "none" when the action changed nothing in the page (then `why`: the likely reason and what to try).
    effect: str | None = None
    #: What the field or editor holds after type/fill. (A scroll adds `scrolled`: {element, ref, dx, dy, moved}; left
    #: out of the model so the tools' outputSchema stays inside its budget.)
    value: str | None = None


class ActResult(_Result):
    """An act: what was done and the snapshot lines that changed; a dry run: which actions would submit a form."""

    done: list[ActDone] | None = None
    changed: list[str] | None = None
    submits: list[str] | None = None
    url: str | None = None
    tree: str | None = None
    untrusted: str | None = None
    trusted: str | None = None
    #: Not in the model (the outputSchema budget), but in the answer: `effect: "none"` when no action changed
    #: anything, and `requests` ({started, settled, waitedMs, capMs}) when the act started requests; `errors` and
    #: `failed` when something broke during the act and its settle window (the page sends raw stacks and request
    #: rows; the tool answers one line each: the error at its top app frame as written, `METHOD /path status`).


class ConsoleEntry(_Result):
    seq: int
    level: str
    text: str
    time: int
    url: str | None = None
    #: The page sends an error's raw stack; page_console answers its frames mapped, one line each (with `stack`).
    stack: str | list[str] | None = None
    #: The act (its seq in the page's journal) an error came during or after (page plumbing).
    act: Annotated[int | None, Field(exclude=True)] = None
    #: Whether it is an error thrown, or an Error logged as is (what an act counts as its handler's failure).
    thrown: Annotated[bool | None, Field(exclude=True)] = None
    #: Not in the model (the outputSchema budget): page_console adds an error's top app frame at the line written
    #: (`at`: `fn (file:line:col)`), that line's text (`code`), and where it was compiled to when that differs
    #: (`generated`), or a `note` when no map covered it.


class ConsoleResult(_Result):
    """The entries since the cursor (page_console with `errors` answers `errors`, the groups, and no entries)."""

    entries: list[ConsoleEntry]
    cursor: int
    more: bool
    #: The page's journal of acts (with `errors`), and how many hot updates it took (a stale map's key): plumbing
    #: the tool takes out.
    acts: Annotated[list[dict[str, Any]] | None, Field(exclude=True)] = None
    hot: Annotated[int | None, Field(exclude=True)] = None


class ProblemsResult(_Result):
    """What broke since a mark: errors (text, raw stack, the act before) and failed requests; empty when nothing did."""

    errors: list[dict[str, Any]] | None = None
    failed: list[dict[str, Any]] | None = None
    moreErrors: int | None = None
    moreFailed: int | None = None


class MapsResult(_Result):
    """Each URL's map ({url, sources, sourceRoot, mappings, sourcesContent}) or null, and how many hot updates the
    document took (a map from before one is stale)."""

    maps: dict[str, dict[str, Any] | None]
    hot: int = 0


class VitalsResult(_Result):
    """Long animation frames (scripts at compiled positions; `hot`: sampled functions), LCP, CLS, INP as the page
    measured them, before the bridge maps them."""

    frames: list[dict[str, Any]]
    cursor: float
    profiling: str
    lcp: dict[str, Any] | None = None
    cls: dict[str, Any] | None = None
    inp: dict[str, Any] | None = None
    acts: list[dict[str, Any]] | None = None


class WaitResult(_Result):
    met: bool
    ms: int
    value: Any = None
    #: Not in the model (the outputSchema budget): `errors` and `failed` when something broke while it waited (as
    #: an act's answer says them).


class NavigateResult(_Result):
    from_: str = Field(alias="from")
    action: str
    to: str | None = None
    #: The document that took the command (the one it registered as); a new document registers as another.
    doc: str | None = None
    #: Whether the navigation replaces this document (None: the page cannot tell, e.g. back without Navigation API).
    crossDocument: bool | None = None
    #: Where the page's logs were as it left ({console, net, doc}): the `problems` the new document had since.
    mark: dict[str, Any] | None = None


class NetworkRow(_Result):
    id: int | None = None
    kind: str
    method: str | None = None
    url: str
    status: int | None = None
    ms: float | None = None
    size: int | None = None
    error: str | None = None
    #: In flight: no answer yet, or the app is reading its body. (A WebSocket or EventSource that is open also has
    #: `open: true`, left out of the schema: it is not in flight.)
    pending: bool | None = None


class NetworkResult(_Result):
    """A list (requests, cursor, more, inflight, and resources when asked), or one request in full (id)."""

    requests: list[NetworkRow] | None = None
    cursor: int | None = None
    more: bool | None = None
    inflight: int | None = None
    resources: list[dict[str, Any]] | None = None
    request: dict[str, Any] | None = None
    #: Requests and resources left out as dev-server noise (devServer: true shows them).
    devServerHidden: int | None = None


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
    #: module's source map ({url, sources, sourceRoot, mappings}) for the bridge to map it back
    #: (bridge/pages/sourcemap.py).
    generated: dict[str, Any] | None = None


class HighlightResult(_Result):
    highlighted: list[str] | None = None
    cleared: int | None = None


class AskResult(_Result):
    shown: str | None = None
    dismissed: str | None = None


class NotifyResult(_Result):
    shown: bool


class RecordResult(_Result):
    recording: bool
    name: str | None = None


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


class OpenResult(_Result):
    """The browser window and tab the extension opened."""

    windowId: int | None = None
    tabId: int | None = None


class ViewportResult(_Result):
    """The tab's viewport and window as the page sees them (CSS px), and whether it is the tab in front."""

    innerWidth: float
    innerHeight: float
    outerWidth: float
    outerHeight: float
    screenX: float
    screenY: float
    devicePixelRatio: float
    visible: bool
    focused: bool


# ---- WebMCP: the tools a page registers (bridge/pages/webmcp.py reads them, bridge/tools/page/webmcp.py offers them) --

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


class ToolCallParams(Params):
    """tool_call: one of this document's WebMCP tools, by name, with arguments its schema accepts."""

    name: Annotated[str, Field(min_length=1, max_length=64)]
    arguments: dict[str, Any] = Field(default_factory=dict)


class ToolCallResult(_Result):
    """What executeTool() answered, as JSON text (or plain text)."""

    json_: str = Field(alias="json")


# ---- the table ------------------------------------------------------------------------------------------------

ConsentClass = Literal["eval", "navigate", "submit", "tool"]


@dataclass(frozen=True)
class Command:
    """One page command and its policy: the consent class it may need, whether it only reads, the tool that owns
    it (None: bridge plumbing no tool exposes on its own). `--disable-tools` on the owner disables the command on
    every path, and its consent class applies on every path (page_exec(command=…), the owning tool, batches)."""

    name: str
    consent: ConsentClass | None
    read_only: bool
    tool: str | None
    #: The params model: what an agent gives, checked on every path it reaches the command by, before the policy
    #: runs.
    params: type[BaseModel]
    #: What the client answers (mirrored in inject/command_types.js).
    result: type[BaseModel]
    #: What the page gets, when the bridge adds plumbing of its own to the agent's params (None: `params`).
    wire: type[BaseModel] | None = None

    @property
    def sent(self) -> type[BaseModel]:
        """The model of the params as the exec frame carries them (mirrored in inject/command_types.js)."""
        return self.wire or self.params


#: Every command a client answers, with its policy. The client's COMMANDS table (inject/commands.js) names the same.
COMMAND_TABLE: dict[str, Command] = {c.name: c for c in (
    Command("eval", "eval", False, "page_exec", EvalParams, EvalResult),
    Command("ping", None, True, None, NoParams, PingResult),
    Command("frames", None, True, None, NoParams, FramesResult),
    Command("location", None, True, None, NoParams, LocationResult),
    Command("snapshot", None, True, "page_snapshot", SnapshotParams, SnapshotResult, wire=SnapshotWire),
    Command("find", None, True, "page_find", FindParams, FindResult),
    # consent only when the actions would submit a form (a dry run tells)
    Command("act", "submit", False, "page_act", ActParams, ActResult, wire=ActWire),
    Command("console", None, True, "page_console", ConsoleParams, ConsoleResult),
    Command("wait", None, True, "page_wait", WaitParams, WaitResult, wire=WaitWire),
    # consent only when going to another origin
    Command("navigate", "navigate", False, "page_navigate", NavigateParams, NavigateResult),
    Command("network", None, True, "page_network", NetworkParams, NetworkResult),
    # what broke since a mark, and the maps to read it with (bridge/pages/stacks.py): plumbing of the tools that act
    Command("problems", None, True, None, ProblemsParams, ProblemsResult),
    Command("maps", None, True, None, MapsParams, MapsResult),
    Command("vitals", None, True, "page_vitals", VitalsParams, VitalsResult),
    Command("source", None, True, "page_source", ElementParams, SourceResult),
    Command("highlight", None, False, "page_highlight", HighlightParams, HighlightResult),
    Command("ask", None, False, "user_ask", AskParams, AskResult),
    Command("notify", None, False, "user_notify", NotifyParams, NotifyResult),
    Command("screenshot", None, True, "page_screenshot", ScreenshotParams, ScreenshotResult, wire=ScreenshotWire),
    # plumbing for input and screenshots through the desktop (the title marker it sets is taken off at once)
    Command("viewport", None, True, None, ViewportParams, ViewportResult),
    # a window of the tab's own origin (page_open waits for its client and makes it the agent's own tab)
    Command("open", None, False, "page_open", OpenParams, OpenResult),
    Command("selection", None, True, None, NoParams, SelectionResult),  # only through page_exec(command=…)
    # a skill recording (bridge/skills/recording.py starts and stops it; the human's steps come back as events). It
    # changes nothing in the app, and the tab's panel shows a card while it records.
    Command("record", None, True, None, RecordParams, RecordResult),
    # WebMCP: the page's own tools (bridge/pages/webmcp.py); calling one is acting on its origin, whatever it says
    # it does
    Command("tools", None, True, "page_tools", NoParams, ToolsResult),
    Command("tool_call", "tool", False, "page_call_tool", ToolCallParams, ToolCallResult),
)}
COMMANDS = tuple(COMMAND_TABLE)


def explain(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'body'}: {e['msg']}" for e in exc.errors()[:5])


def parse_params(command: str, params: BaseModel | dict[str, Any] | None, *, wire: bool = False) -> BaseModel:
    """`params` as `command`'s params model reads them (`wire`: as the page gets them, the bridge's plumbing
    included; a model already of that kind as it is), or a bad_arguments error saying what is wrong."""
    spec = COMMAND_TABLE.get(command)
    if spec is None:
        raise errors.BridgeError(f"'{command}' is not a page command. Known: {', '.join(COMMAND_TABLE)}.",
                                 code="bad_arguments")
    model = spec.sent if wire else spec.params
    if type(params) is model:
        return params
    if isinstance(params, BaseModel):
        params = to_wire(params)
    if not wire and isinstance(params, dict) and (own := sorted(set(params) & plumbing(spec))):
        raise errors.BridgeError(f"{', '.join(own)} {'is' if len(own) == 1 else 'are'} the bridge's own for the "
                                 f"'{command}' command, not arguments (an upload names its files in `files`; the "
                                 f"bridge reads them; {spec.tool} offers the rest). Leave them out.",
                                 code="invalid_argument")
    try:
        return model.model_validate(params or {})
    except ValidationError as exc:
        raise errors.BridgeError(f"Bad params for the '{command}' command: {explain(exc)}. See docs/commands.md "
                                 "and the tool that owns it.", code="bad_arguments") from None


def plumbing(spec: Command) -> set[str]:
    """The fields the bridge adds for the page that an agent does not give (their wire names)."""
    if spec.wire is None:
        return set()
    return {i.alias or n for n, i in spec.wire.model_fields.items()} - \
        {i.alias or n for n, i in spec.params.model_fields.items()}


def to_wire(params: BaseModel) -> dict[str, Any]:
    """Params as the exec frame carries them: every default filled in, a None left out unless it was given (the
    page tells an absent value from a given one, e.g. an action's own `trusted` from the call's)."""
    given = params.model_fields_set
    out: dict[str, Any] = {}
    for name, info in type(params).model_fields.items():
        value = getattr(params, name)
        if value is None and name not in given:
            continue
        if isinstance(value, list) and value and isinstance(value[0], BaseModel):
            value = [to_wire(v) for v in value]
        out[info.alias or name] = value
    return out
