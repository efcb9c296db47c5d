"""Visible text in a screenshot, read with tesseract: the words and lines with their screen boxes (desktop_read_text),
and finding a phrase to click (the fallback for apps that expose no accessibility tree: Tk, xterm, games). Slower (a
few hundred ms) and approximate: answers say method 'ocr' and carry tesseract's confidence.

A screenshot whose backend already knows its text (`Shot.words`, e.g. the tests' fake desktop) is not read again.
"""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

from bridge.desktop.backend import Shot
from bridge.desktop.errors import DesktopError


def available() -> bool:
    return shutil.which("tesseract") is not None


def words(shot: Shot, timeout: float = 20.0) -> list[dict[str, Any]]:
    """Words on the screenshot, with screen bounds, grouped by line: tesseract's reading, or the backend's own."""
    if shot.words is not None:
        return shot.words
    png, origin = shot.png, shot.origin
    if not available():
        raise DesktopError("OCR needs tesseract: sudo apt-get install -y tesseract-ocr", code="not_available")
    try:
        out = subprocess.run(["tesseract", "stdin", "stdout", "--psm", "11", "tsv"], input=png, capture_output=True,
                             timeout=timeout, check=True).stdout.decode("utf-8", "replace")
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        raise DesktopError(f"tesseract failed: {exc}", code="ocr_failed") from exc
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    found = []
    for r in rows:
        if len(r) < 12 or not r[11].strip() or float(r[10]) < 0:
            continue
        # psm 11 (sparse text) reads UI screens best here: psm 3 found nothing in a Tk window whose words psm 11 read
        found.append({"text": r[11].strip(), "line": (int(r[2]), int(r[3]), int(r[4])), "conf": float(r[10]),
                      "bounds": {"x": origin[0] + int(r[6]), "y": origin[1] + int(r[7]), "width": int(r[8]),
                                 "height": int(r[9])}})
    return found


def find(shot: Shot, text: str) -> list[dict[str, Any]]:
    """Runs of consecutive words on one line whose joined text contains `text` (case-insensitive)."""
    want = " ".join(text.split()).casefold()
    ws = words(shot)
    lines: dict[tuple[int, int, int], list[dict[str, Any]]] = {}
    for w in ws:
        lines.setdefault(w["line"], []).append(w)
    hits = []
    for run in lines.values():
        for i in range(len(run)):
            for j in range(i, len(run)):
                joined = " ".join(w["text"] for w in run[i:j + 1]).casefold()
                if want in joined and (j == i or want not in " ".join(w["text"] for w in run[i + 1:j + 1]).casefold()):
                    x1 = min(w["bounds"]["x"] for w in run[i:j + 1])
                    y1 = min(w["bounds"]["y"] for w in run[i:j + 1])
                    x2 = max(w["bounds"]["x"] + w["bounds"]["width"] for w in run[i:j + 1])
                    y2 = max(w["bounds"]["y"] + w["bounds"]["height"] for w in run[i:j + 1])
                    hits.append({"text": " ".join(w["text"] for w in run[i:j + 1]),
                                 "conf": round(min(w["conf"] for w in run[i:j + 1]), 1),
                                 "bounds": {"x": x1, "y": y1, "width": x2 - x1, "height": y2 - y1}})
                    break
                if len(joined) > len(want) + 40:
                    break
    return hits


def _box(items: list[dict[str, Any]]) -> dict[str, int]:
    x1 = min(w["bounds"]["x"] for w in items)
    y1 = min(w["bounds"]["y"] for w in items)
    x2 = max(w["bounds"]["x"] + w["bounds"]["width"] for w in items)
    y2 = max(w["bounds"]["y"] + w["bounds"]["height"] for w in items)
    return {"x": x1, "y": y1, "width": x2 - x1, "height": y2 - y1}


def read(shot: Shot, min_conf: float = 30.0, max_words: int = 1000) -> dict[str, Any]:
    """The words tesseract reads (confidence >= min_conf), as lines in reading order (top to bottom, then left to
    right), each with its words; screen bounds throughout."""
    ws = [w for w in words(shot) if w["conf"] >= min_conf]
    truncated = len(ws) > max_words
    grouped: dict[tuple[int, int, int], list[dict[str, Any]]] = {}
    for w in ws[:max_words]:
        grouped.setdefault(w["line"], []).append(w)
    lines = []
    for run in grouped.values():
        run.sort(key=lambda w: w["bounds"]["x"])
        lines.append({"text": " ".join(w["text"] for w in run), "bounds": _box(run),
                      "conf": round(min(w["conf"] for w in run), 1),
                      "words": [{"text": w["text"], "bounds": w["bounds"], "conf": round(w["conf"], 1)} for w in run]})
    # reading order; lines whose middles are within half a line of each other count as one row
    lines.sort(key=lambda ln: (ln["bounds"]["y"] + ln["bounds"]["height"] // 2, ln["bounds"]["x"]))
    rows: list[list[dict[str, Any]]] = []
    for ln in lines:
        mid = ln["bounds"]["y"] + ln["bounds"]["height"] / 2
        if rows:
            last = rows[-1][0]["bounds"]
            if abs(mid - (last["y"] + last["height"] / 2)) < max(4, last["height"] / 2):
                rows[-1].append(ln)
                continue
        rows.append([ln])
    ordered = [ln for row in rows for ln in sorted(row, key=lambda ln: ln["bounds"]["x"])]
    return {"text": "\n".join(" ".join(ln["text"] for ln in sorted(row, key=lambda ln: ln["bounds"]["x"]))
                               for row in rows),
            "lines": ordered, "wordCount": sum(len(ln["words"]) for ln in ordered), "truncated": truncated}
