"""Source maps (v3): a position in the code a dev server compiled, back to the file as written.

The page sends the map of the module its position is in (`mappings`, `sources`, `sourceRoot`; not the sources' text),
fetched from the dev server the page came from; this module decodes it. Nothing here touches the network."""

from __future__ import annotations

import bisect
from typing import Any
from urllib.parse import urljoin, urlsplit

_B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


def _vlq(segment: str) -> list[int]:
    """The signed numbers of one Base64 VLQ segment; ValueError on a character outside Base64."""
    out, value, shift = [], 0, 0
    for ch in segment:
        digit = _B64[ch]  # KeyError -> caller
        value += (digit & 31) << shift
        if digit & 32:
            shift += 5
            continue
        out.append(-(value >> 1) if value & 1 else value >> 1)
        value, shift = 0, 0
    return out


def decode(mappings: str) -> list[list[tuple[int, int, int, int]]]:
    """Every generated line's segments that name a source, as (generated column, source index, line, column), all
    0-based, in the order written (by column). KeyError/IndexError on a malformed map."""
    lines: list[list[tuple[int, int, int, int]]] = []
    src = src_line = src_col = 0
    for text in mappings.split(";"):
        gen_col = 0
        row = []
        for segment in filter(None, text.split(",")):
            fields = _vlq(segment)
            gen_col += fields[0]
            if len(fields) >= 4:
                src, src_line, src_col = src + fields[1], src_line + fields[2], src_col + fields[3]
                row.append((gen_col, src, src_line, src_col))
        row.sort(key=lambda seg: seg[0])
        lines.append(row)
    return lines


def lookup(row: list[tuple[int, int, int, int]], column: int) -> tuple[int, int, int] | None:
    """The (source, line, column) of the last segment of a decoded line at or before 0-based `column`."""
    at = bisect.bisect_right(row, (column, float("inf"), 0, 0)) - 1
    return row[at][1:] if at >= 0 else None


def original(mappings: str, line: int, column: int) -> tuple[int, int, int] | None:
    """(source index, line, column) written where generated `line`:`column` (1-based, as a stack frame gives them)
    comes from: the last mapped segment at or before that column on that line. None when the line maps nothing."""
    src = src_line = src_col = 0
    best: tuple[int, int, int] | None = None
    for number, text in enumerate(mappings.split(";"), start=1):
        gen_col = 0
        for segment in filter(None, text.split(",")):
            fields = _vlq(segment)
            gen_col += fields[0]
            if len(fields) >= 4:
                src, src_line, src_col = src + fields[1], src_line + fields[2], src_col + fields[3]
                if number == line and gen_col <= column - 1:
                    best = (src, src_line + 1, src_col + 1)
        if number == line:
            return best
    return None


def source_path(name: str, map_url: str, module_url: str) -> str:
    """A map's source as the dev server's URL path without its leading slash ('src/App.jsx'), resolved against the
    map's URL; a file-system path ('/home/me/app/src/App.jsx') becomes the module's own path when it ends with it."""
    module_path = urlsplit(module_url).path
    if name.startswith("/") and not name.startswith("//"):
        return module_path.lstrip("/") if len(module_path) > 1 and name.endswith(module_path) else name
    resolved = urljoin(map_url, name)
    if urlsplit(resolved).netloc == urlsplit(map_url).netloc:
        return urlsplit(resolved).path.lstrip("/")
    return resolved


def apply(found: dict[str, Any]) -> dict[str, Any]:
    """A `source` answer with a compiled position (`generated`, with its module's map) mapped back to the written
    file; without a usable map the compiled position stays and a note says so. Other answers pass unchanged."""
    raw = found.get("generated")
    if not isinstance(raw, dict):
        return found
    part = raw.get("map") if isinstance(raw.get("map"), dict) else None
    gen = {k: v for k, v in raw.items() if k != "map"}
    out = {**found, "generated": gen}  # where it was compiled to stays; the map itself does not
    hit = None
    if part and isinstance(part.get("mappings"), str) and isinstance(part.get("sources"), list):
        try:
            hit = original(part["mappings"], int(gen.get("line") or 0), int(gen.get("column") or 0))
        except (KeyError, IndexError, ValueError, TypeError):
            hit = None  # a malformed map maps nothing
        if hit is not None and not 0 <= hit[0] < len(part["sources"]):
            hit = None
    if hit is None:
        out["note"] = ((out.get("note") or "") + " The position is in the code the dev server compiled (its source "
                       "map was missing or did not cover it): the line may not be the one written.").strip()
        return out
    index, line, column = hit
    root = part.get("sourceRoot")
    name = (root.rstrip("/") + "/" if isinstance(root, str) and root else "") + str(part["sources"][index])
    module_url = str(gen.get("url") or "")
    out.update(file=source_path(name, str(part.get("url") or module_url), module_url), line=line, column=column)
    return out
