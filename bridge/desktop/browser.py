"""desktop_open_url's browser: which URLs it may open (http and https only) and the argv that opens one in a fresh,
throwaway profile (never a shell)."""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from bridge.desktop.errors import DesktopError

CHROMIUM_NAMES = ("chromium", "chrome", "brave", "msedge", "microsoft-edge", "vivaldi", "opera")
#: Quiet, throwaway-profile flags (as the test suite runs Chromium), plus web content in the accessibility tree.
CHROMIUM_FLAGS = [
    "--no-first-run", "--no-default-browser-check", "--disable-gpu", "--disable-quic",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--password-store=basic",
    "--force-renderer-accessibility", "--new-window",
]


def check_url(url: str) -> str:
    """The URL if it is http(s) with a host and nothing that could pass for a flag or a second argument."""
    url = url.strip()
    parts = urlsplit(url)
    bad = any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname or bad:
        raise DesktopError(f"desktop_open_url opens http:// and https:// URLs only, with a host and no spaces; not "
                           f"{url[:200]!r}. Files, javascript:, data: and browser-internal pages are refused.",
                           code="bad_arguments")
    return url


def family(program: str) -> str:
    base = os.path.basename(program).lower()
    if any(name in base for name in CHROMIUM_NAMES):
        return "chromium"
    if "firefox" in base or "librewolf" in base:
        return "firefox"
    return "other"


def browser_argv(program: str, url: str, profile: str) -> list[str]:
    """argv that opens `url` in a new window of its own browser process, with `profile` as its profile directory."""
    kind = family(program)
    if kind == "chromium":
        sandbox = ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []  # Chromium refuses root
        return [program, *CHROMIUM_FLAGS, *sandbox, f"--user-data-dir={profile}", url]
    if kind == "firefox":
        return [program, "-no-remote", "-new-instance", "-profile", profile, url]
    return [program, url]
