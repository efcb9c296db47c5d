"""The accessibility half of a desktop backend, the same on X11 and Wayland: every element call goes to the AT-SPI
helper (`self.a11y()`), with the backend's windows for placing boxes (GTK 4 reports window-relative extents)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class AtspiElements:
    """Mixed into a backend that has `a11y()` (its AtspiClient) and `windows()`."""

    def a11y(self) -> Any:
        raise NotImplementedError

    def windows(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    def accessible_pids(self) -> set[int]:
        return set(self.a11y().call("pids"))

    def elements(self, *, pid: int | None, window: dict[str, Any] | None, within: str | None, depth: int,
                 max_nodes: int, include_hidden: bool, full: bool) -> tuple[list[dict[str, Any]], bool]:
        got = self.a11y().call("elements", pid=pid, window=window, within=within, depth=depth, max_nodes=max_nodes,
                               include_hidden=include_hidden, full=full,
                               windows=self.windows() if window is None else [])
        return got["nodes"], got["truncated"]

    def candidates(self, *, pid: int | None, window: dict[str, Any] | None, within: str | None,
                   roles: list[str] | None) -> list[dict[str, Any]]:
        return self.a11y().call("candidates", pid=pid, window=window, within=within, roles=roles,
                                windows=self.windows() if window is None else [])

    def element(self, ref: str) -> dict[str, Any]:
        return self.a11y().call("element", ref=ref, windows=self.windows())

    def element_at(self, window: dict[str, Any], x: int, y: int) -> dict[str, Any] | None:
        return self.a11y().call("hit", window=window, x=x, y=y)

    def focused_element(self, window: dict[str, Any]) -> dict[str, Any] | None:
        return self.a11y().call("focused", window=window)

    def element_action(self, ref: str, prefer: Iterable[str]) -> str:
        return self.a11y().call("action", ref=ref, prefer=list(prefer))

    def element_focus(self, ref: str) -> bool:
        return self.a11y().call("focus", ref=ref)

    def element_set_text(self, ref: str, text: str) -> bool:
        return self.a11y().call("set_text", ref=ref, text=text)
