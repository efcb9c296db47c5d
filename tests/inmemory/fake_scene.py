"""The fake desktop's scene (tests/inmemory/fake_desktop.py): accessible nodes, windows, the three windows it starts
with, and the geometry and pixels a screenshot needs."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

SCREEN = (1280, 800)
TITLE_BAR = 24
TITLE_MAX = 12  # what the Notes window's Title field keeps


@dataclass
class Node:
    """One accessible element; bounds are relative to its window's client area."""

    role: str
    name: str
    box: tuple[int, int, int, int]
    value: str | None = None
    max_len: int | None = None
    on_press: Callable[[], None] | None = None
    children: list[Node] = field(default_factory=list)
    ref: str = ""
    presses: int = 0
    selected: bool = False
    #: What the app makes of what it holds after input (a calculator evaluating `6*7=`); None: kept as typed.
    transform: Callable[[str], str] | None = None

    @property
    def editable(self) -> bool:
        return self.role == "text"


@dataclass
class Win:
    id: int
    pid: int
    title: str
    cls: str
    frame: dict[str, int]
    root: Node | None  # None: no accessibility tree
    words: list[str] = field(default_factory=list)  # text on screen where there is no tree
    state: set[str] = field(default_factory=set)
    focus: Node | None = None

    def client(self) -> dict[str, int]:
        """The window's inside, under its title bar (screen coordinates)."""
        f = self.frame
        return {"x": f["x"], "y": f["y"] + TITLE_BAR, "width": f["width"], "height": f["height"] - TITLE_BAR}

    def bounds(self, n: Node) -> dict[str, int]:
        c = self.client()
        return {"x": c["x"] + n.box[0], "y": c["y"] + n.box[1], "width": n.box[2], "height": n.box[3]}

    @property
    def showing(self) -> bool:
        return "minimized" not in self.state

    def nodes(self) -> list[Node]:
        return walk(self.root) if self.root is not None else []


def walk(root: Node) -> list[Node]:
    """A tree's nodes in tree order."""
    out, stack = [], [root]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(reversed(n.children))
    return out


def under(w: Win, x: int, y: int) -> list[Node]:
    """The window's nodes that hold the point, outermost first (the last is the deepest)."""
    return [n for n in w.nodes() if inside(w.bounds(n), x, y)]


#: A window as a scene makes it: title, class, frame (x, y, width, height), tree.
Made = tuple[str, str, tuple[int, int, int, int], Node]


def notes() -> Made:
    """A Title field that keeps TITLE_MAX characters, Save (shows the title in Status) and Clear."""
    status = Node("label", "Status: idle", (10, 130, 300, 20))
    field_ = Node("text", "Title", (10, 10, 300, 28), value="", max_len=TITLE_MAX)

    def save() -> None:
        status.name = f"Saved: {field_.value}"

    def clear() -> None:
        field_.value = ""
        status.name = "Status: cleared"

    root = Node("frame", "Notes", (0, 0, 480, 376), children=[
        field_, Node("push button", "Save", (10, 50, 90, 30), on_press=save),
        Node("push button", "Clear", (110, 50, 90, 30), on_press=clear), status])
    return "Notes", "FakeNotes", (100, 100, 480, 400), root


def counter() -> Made:
    """An Add button and a Count label that counts its presses."""
    count = Node("label", "Count: 0", (10, 50, 200, 20))
    add = Node("push button", "Add", (10, 10, 90, 30))

    def bump() -> None:
        count.name = f"Count: {add.presses}"

    add.on_press = bump
    return "Counter", "FakeCounter", (700, 100, 400, 300), Node("frame", "Counter", (0, 0, 400, 276),
                                                                children=[add, count])


def launched(title: str, program: str) -> Made:
    """The window of a program the fake launches: one OK button."""
    return title, program, (300, 200, 500, 300), Node("frame", title, (0, 0, 500, 276),
                                                      children=[Node("push button", "OK", (10, 10, 80, 30))])


def inside(b: dict[str, int], x: int, y: int) -> bool:
    return b["x"] <= x < b["x"] + b["width"] and b["y"] <= y < b["y"] + b["height"]


def center(b: dict[str, int]) -> tuple[int, int]:
    return b["x"] + b["width"] // 2, b["y"] + b["height"] // 2


def png(width: int, height: int) -> bytes:
    """A grey PNG of that size (RGB, 8 bits)."""
    raw = zlib.compress((b"\x00" + b"\xd0" * (3 * width)) * height, 1)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", raw) + chunk(b"IEND", b""))
