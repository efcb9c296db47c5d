"""Find visible text in a screenshot with tesseract: the fallback for apps that expose no accessibility tree (Tk,
xterm, games). Slower (a few hundred ms) and approximate: answers say method 'ocr' and carry tesseract's confidence.
"""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

from bridge.desktop.errors import DesktopError


def available() -> bool:
    return shutil.which("tesseract") is not None


def words(png: bytes, origin: tuple[int, int], timeout: float = 20.0) -> list[dict[str, Any]]:
    """Words tesseract reads in the PNG, with screen bounds, grouped by line."""
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
        found.append({"text": r[11].strip(), "line": (int(r[2]), int(r[3]), int(r[4])), "conf": float(r[10]),
                      "bounds": {"x": origin[0] + int(r[6]), "y": origin[1] + int(r[7]), "width": int(r[8]),
                                 "height": int(r[9])}})
    return found


def find(png: bytes, origin: tuple[int, int], text: str) -> list[dict[str, Any]]:
    """Runs of consecutive words on one line whose joined text contains `text` (case-insensitive)."""
    want = " ".join(text.split()).casefold()
    ws = words(png, origin)
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
