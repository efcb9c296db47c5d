"""bridge/server/principals.py: the human key is a file only its user reads, distinct from the MCP token; an
agent's `allow` entry is covered only by what the human granted (a glob of the agent's only by that very glob)."""

from __future__ import annotations

import stat

import pytest
from starlette.datastructures import Headers

from bridge.server.principals import (AGENT, HEADER, TERMINAL, beyond, covered, key_file, load_or_create_key,
                                      read_key, terminal_headers, who)
from bridge.server.security import load_or_create_token
from bridge.settings import Settings


def test_the_human_key_is_created_0600_once_and_is_not_the_token(tmp_path):
    config = tmp_path / "cfg"
    key = load_or_create_key(config)
    assert stat.S_IMODE(key_file(config).stat().st_mode) == 0o600
    assert stat.S_IMODE(config.stat().st_mode) & 0o077 == 0
    assert load_or_create_key(config) == key == read_key(config)
    assert key != load_or_create_token(Settings(config_dir=config))
    assert terminal_headers(config) == {HEADER: key}
    assert terminal_headers(tmp_path / "elsewhere") == {} and read_key(tmp_path / "elsewhere") is None


def test_only_the_right_key_is_the_terminal(tmp_path):
    key = load_or_create_key(tmp_path)
    assert who(Headers({HEADER: key}), key) == TERMINAL
    for sent in ("", "x", key + "x", key.upper()):
        assert who(Headers({HEADER: sent}), key) == AGENT
    assert who(Headers({}), key) == AGENT
    assert who(Headers({HEADER: ""}), None) == AGENT  # no key on the bridge: nobody is the terminal


@pytest.mark.parametrize(("entry", "granted", "ok"), [
    ("eval", ["eval"], True),
    ("navigate", ["eval"], False),
    ("page_exec", ["page_*"], True),
    ("page_*", ["page_*"], True),
    ("page_*", ["page_e*"], False),
    ("page_e[x]*", ["page_*"], False),  # the agent's own glob: only the very glob the human granted
    ("page_*", ["page_?"], False),
    ("*", ["eval", "page_*"], False),
    ("desktop_click", ["page_*"], False),
])
def test_an_agents_allow_entry_is_covered_only_by_the_humans_grant(entry, granted, ok):
    assert covered(entry, granted) is ok
    assert beyond([entry], granted) == ([] if ok else [entry])
