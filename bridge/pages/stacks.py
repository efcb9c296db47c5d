"""Stack traces in the developer's terms: a page's raw stack (positions in the code its dev server compiled) parsed,
mapped through the modules' source maps (bridge/pages/sourcemap.py decodes them) to the lines written, and written compactly
as `priceWithTax (src/cart.ts:13:15)`, library frames (node_modules, the dev server's and bundler's runtime) folded.

Maps are decoded once per module version and kept in `SourceMaps` (one per bridge, bounded); the page fetches them
(inject/problems.js), since only it can reach its dev server. Nothing here touches the network."""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from bridge.pages import sourcemap

#: V8 (`    at fn (url:1:2)`, `    at url:1:2`, `    at async fn (…)`) and Firefox/WebKit (`fn@url:1:2`) frames.
_V8 = re.compile(r"^\s*at (?:(?P<fn>.*?) \()?(?P<url>(?:https?|file|webpack-internal|webpack):[^\s()]*?|[^\s()]*?):(?P<line>\d+):(?P<col>\d+)\)?\s*$")
#: V8's frame in code run by eval or `new Function`: `at fn (eval at caller (url:1:2), <anonymous>:3:4)`, the position
#: in the evaluated code last.
_V8_EVAL = re.compile(r"^\s*at (?:(?P<fn>.*?) )?\(eval at .*, (?P<url>[^\s(),]+):(?P<line>\d+):(?P<col>\d+)\)\s*$")
_GECKO = re.compile(r"^\s*(?P<fn>[^@\s]*)@(?P<url>.+?):(?P<line>\d+):(?P<col>\d+)\s*$")
#: Where library code lives: node_modules (Vite's optimised deps too), the dev server's client, a bundler's runtime.
LIBRARY = re.compile(r"node_modules|/@vite/|/@react-refresh|/@id/|webpack/runtime|webpack/bootstrap|dbg_client\.js"
                     r"|^(?:node|native)(?::|$)")
#: Decoded maps kept (modules of every page together).
CACHE_SIZE = 256


@dataclass(frozen=True)
class Frame:
    """One frame as the page's stack gave it: a position in the compiled code (1-based line and column)."""

    fn: str
    url: str
    line: int
    column: int


@dataclass
class Mapped:
    """One frame in the written file: `generated` is the compiled position when it differs, `note` why there is no
    written one."""

    fn: str
    file: str
    line: int
    column: int
    library: bool
    generated: str | None = None
    note: str | None = None
    code: str | None = None

    def compact(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}"
        return f"{self.fn} ({where})" if self.fn else where

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"at": self.compact()}
        for key in ("code", "generated", "note"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        return out


def parse(stack: str | None) -> list[Frame]:
    """The frames of a stack string (lines that are not frames, like the message, are skipped)."""
    out = []
    for text in (stack or "").splitlines():
        v8 = text.lstrip().startswith("at ")
        m = (_V8_EVAL.match(text) or _V8.match(text)) if v8 else _GECKO.match(text)
        if m and m.group("url"):
            fn = (m.group("fn") or "").removeprefix("async ").strip()
            out.append(Frame(fn, m.group("url"), int(m.group("line")), int(m.group("col"))))
    return out


class DecodedMap:
    """One module's source map, decoded once: per generated line, its segments sorted by column."""

    def __init__(self, part: dict[str, Any]) -> None:
        self.url = str(part.get("url") or "")
        #: A script served as written (no map at all): its positions are the written ones, `text` its source.
        self.plain = bool(part.get("plain"))
        if self.plain:
            part = {"url": self.url, "sources": [self.url], "mappings": "", "sourcesContent": [part.get("text")]}
        root = part.get("sourceRoot")
        prefix = root.rstrip("/") + "/" if isinstance(root, str) and root else ""
        self.sources = [prefix + str(s) for s in part.get("sources") or []]
        content = part.get("sourcesContent")
        self.content: list[str | None] = list(content) if isinstance(content, list) else []
        self._lines: list[list[tuple[int, int, int, int]]] = sourcemap.decode(str(part.get("mappings") or ""))
        self._split: dict[int, list[str]] = {}

    def original(self, line: int, column: int) -> tuple[int, int, int] | None:
        """(source index, line, column), 1-based, written where generated `line`:`column` (1-based) comes from."""
        if self.plain:
            return 0, line, column
        if not 0 < line <= len(self._lines):
            return None
        hit = sourcemap.lookup(self._lines[line - 1], column - 1)
        if hit is None or not 0 <= hit[0] < len(self.sources):
            return None
        return hit[0], hit[1] + 1, hit[2] + 1

    def text_line(self, index: int, line: int) -> str | None:
        """The written line `line` of source `index`, when the map carries its text."""
        if index not in self._split:
            text = self.content[index] if index < len(self.content) else None
            self._split[index] = text.splitlines() if isinstance(text, str) else []
        lines = self._split[index]
        return lines[line - 1] if 0 < line <= len(lines) else None


class SourceMaps:
    """Decoded maps by (page, document, module URL, hot-update count): a module's map is fetched and decoded once per
    version (Vite gives an updated module a new URL; webpack's hot updates bump the count). Bounded, oldest out."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._maps: OrderedDict[tuple[str, ...], DecodedMap | None] = OrderedDict()

    def key(self, page: str, doc: str | None, url: str, hot: int = 0) -> tuple[str, ...]:
        return (page, doc or "", url, str(hot) if url.startswith("webpack-internal:") else "")

    def __contains__(self, key: tuple[str, ...]) -> bool:
        return key in self._maps

    def get(self, key: tuple[str, ...]) -> DecodedMap | None:
        if key in self._maps:
            self._maps.move_to_end(key)
        return self._maps.get(key)

    def put(self, key: tuple[str, ...], part: dict[str, Any] | None) -> None:
        try:
            decoded = DecodedMap(part) if isinstance(part, dict) else None
        except (KeyError, ValueError, TypeError):
            decoded = None  # a malformed map maps nothing
        self._maps[key] = decoded
        self._maps.move_to_end(key)
        while len(self._maps) > self.size:
            self._maps.popitem(last=False)


def needs_map(frame: Frame) -> bool:
    """Whether a frame's module may have a map the page can fetch (library code is not looked up)."""
    return frame.url.startswith(("http:", "https:", "webpack-internal:")) and not LIBRARY.search(frame.url)


def display_path(url: str) -> str:
    """A compiled module's URL as a path ('src/App.tsx'; webpack-internal:///./src/x.js -> 'src/x.js')."""
    if url.startswith("webpack-internal:"):
        return re.sub(r"^webpack-internal:/*(?:\./)?", "", url)
    parts = urlsplit(url)
    return parts.path.lstrip("/") if parts.scheme in ("http", "https") else url


def written_path(name: str, dmap: DecodedMap, module_url: str) -> str:
    """A map's source as a path in the app ('src/cart.ts'): webpack's `webpack://app/./src/cart.js` and URLs of the
    dev server lose their prefix; anything else is resolved as page_source does (bridge/pages/sourcemap.py)."""
    if name.startswith("webpack://"):
        return re.sub(r"^webpack://[^/]*/(?:\./)?", "", name).split("?")[0]
    if module_url.startswith("webpack-internal:"):
        return name.removeprefix("./")
    return sourcemap.source_path(name, dmap.url or module_url, module_url)


def map_frame(frame: Frame, dmap: DecodedMap | None) -> Mapped:
    """A frame in the file as written (or as compiled, with a note, where no map covers it)."""
    compiled = display_path(frame.url)
    hit = dmap.original(frame.line, frame.column) if dmap is not None else None
    if hit is None:
        library = bool(LIBRARY.search(frame.url))
        note = None if library else "no source map covered this frame: the position is in the compiled code"
        return Mapped(frame.fn, compiled, frame.line, frame.column, library, note=note)
    assert dmap is not None
    index, line, column = hit
    file = written_path(dmap.sources[index], dmap, frame.url)
    out = Mapped(frame.fn, file, line, column, bool(LIBRARY.search(file) or LIBRARY.search(frame.url)))
    if (file, line, column) != (compiled, frame.line, frame.column):
        out.generated = f"{compiled}:{frame.line}:{frame.column}"
    text = dmap.text_line(index, line)
    if text is not None:
        out.code = text.strip()[:200]
    return out


def top_app(frames: list[Mapped]) -> Mapped | None:
    """The first frame of the app's own code (not a library's)."""
    return next((f for f in frames if not f.library), None)


def folded(frames: list[Mapped]) -> list[str]:
    """The stack as lines, `at fn (file:line:col)`, each run of library frames folded into one counted line."""
    out: list[str] = []
    run = 0
    for f in frames:
        if f.library:
            run += 1
            continue
        if run:
            out.append(f"… {run} library frame{'s' * (run > 1)} (node_modules, runtime)")
            run = 0
        line = f"at {f.compact()}"
        if f.generated:
            line += f" [compiled {f.generated}]"
        if f.note:
            line += " [no source map]"
        out.append(line)
    if run:
        out.append(f"… {run} library frame{'s' * (run > 1)} (node_modules, runtime)")
    return out
