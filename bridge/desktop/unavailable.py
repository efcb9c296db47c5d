"""Backends for platforms that have no desktop implementation yet: they refuse clearly instead of pretending."""

from __future__ import annotations

from typing import Any, NoReturn

from bridge.desktop.errors import not_available


class _Unavailable:
    name = "unavailable"
    platform = "this platform"

    def __init__(self, settings: Any = None) -> None:
        self.settings = settings

    def start(self) -> NoReturn:
        raise not_available(self.platform)

    def stop(self) -> None:
        pass

    def __getattr__(self, attr: str) -> Any:  # every other operation: the same clear refusal
        if attr.startswith("__"):
            raise AttributeError(attr)

        def refuse(*_args: Any, **_kwargs: Any) -> NoReturn:
            raise not_available(self.platform)

        return refuse


class MacOSBackend(_Unavailable):
    name = "macos"
    platform = "macOS (an Accessibility-API backend is planned)"


class WindowsBackend(_Unavailable):
    name = "windows"
    platform = "Windows (a UI Automation backend is planned)"
