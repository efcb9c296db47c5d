"""The page client's parts (plain JS, no build step), shipped as package data of `bridge.inject`.

The bridge serves them at /inject/dbg_client.js as one classic script: the parts below, in this order, inside one
IIFE (classic, not ES modules: module scripts are deferred and `document.currentScript` is null in them). Order
matters only for what runs at load time; function declarations are hoisted across the whole IIFE.
"""

from __future__ import annotations

import functools
from importlib.resources import files

#: The parts, in load order. `dbg_client.js` (constants, wire types, options) comes first, `boot.js` last.
PARTS: tuple[str, ...] = (
    "dbg_client.js",
    "render.js",
    "deep.js",
    "text.js",
    "page_model.js",
    "lines.js",
    "snapshot.js",
    "keyboard.js",
    "actionability.js",
    "effect.js",
    "act.js",
    "drag.js",
    "trusted_input.js",
    "act_run.js",
    "console.js",
    "wait.js",
    "network.js",
    "problems.js",
    "vitals.js",
    "devserver.js",
    "source.js",
    "overlay.js",
    "human_panel.js",
    "recorder.js",
    "screenshot.js",
    "agent_code.js",
    "webmcp.js",
    "commands.js",
    "frame_router.js",
    "transport.js",
    "boot.js",
)

#: Type-only files: checked by tsc with the parts (inject/jsconfig.json), never served. command_types.js is
#: generated from bridge/pages/commands.py.
TYPES: tuple[str, ...] = ("command_types.js",)

PROLOGUE = (
    "(function () {\n'use strict';\n"
    "if (/** @type {any} */ (window).__dbg && /** @type {any} */ (window).__dbg.version) return; // loaded twice\n"
)
EPILOGUE = "})();\n"


def read_part(name: str) -> str:
    return files(__name__).joinpath(name).read_text(encoding="utf-8")


@functools.cache
def client_script() -> str:
    """The whole client as served: every part, in order, in one IIFE (assembled once per process)."""
    body = "".join(f"// ---- {name} ----\n{read_part(name).removeprefix('// @ts-check')}\n" for name in PARTS)
    return PROLOGUE + body + EPILOGUE
