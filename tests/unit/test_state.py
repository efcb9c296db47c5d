"""The bridge's state is built once and hands each part only what it needs: the Dispatcher keeps addressing,
waiting for and calling pages; asking, consent and open-file are objects of their own over the same parts."""

from __future__ import annotations

from pathlib import Path

from bridge.settings import Settings
from bridge.state import BridgeState
from bridge.tools.page.handle import Page


def state_in(tmp_path: Path) -> BridgeState:
    return BridgeState(Settings(config_dir=tmp_path, no_audit=True, desktop_enabled=False))


def test_the_dispatcher_holds_only_what_addressing_waiting_and_calling_pages_need(tmp_path: Path):
    state = state_in(tmp_path)
    assert set(vars(state.dispatcher)) == {"settings", "registry", "pending", "replicas", "spawn"}
    assert state.dispatcher.registry is state.registry and state.dispatcher.pending is state.pending
    assert state.dispatcher.replicas is state.shared.replicas is None  # a lone bridge has no other replica


def test_asking_consent_and_open_file_share_the_states_one_set_of_parts(tmp_path: Path):
    state = state_in(tmp_path)
    assert state.consent.asking is state.asking
    assert state.asking.questions is state.questions is state.open_file.questions
    assert state.asking.dispatcher is state.consent.dispatcher is state.open_file.dispatcher is state.dispatcher
    assert state.consent.approved is state.shared.approvals  # the human's "allow on this origin" is every replica's


def test_a_page_reads_the_states_parts_when_used_so_the_desktop_built_later_reaches_it(tmp_path: Path):
    state = state_in(tmp_path)
    page = Page(state, object())  # type: ignore[arg-type]
    assert page.settings is state.settings and page.web_tools is state.webtools
    assert page.desktop is None and page.skills is None  # built later by the app (its lifespan, create_app)
    state.desktop = "the desktop"
    assert page.desktop == "the desktop"


def test_a_lone_bridge_gives_only_the_page_ids_and_approvals_and_no_part_that_does_nothing(tmp_path: Path):
    """bridge/shared/seam.py: the local backend (no --cluster URL) has no replicas, questions or inbox to share."""
    shared = state_in(tmp_path).shared
    assert (shared.replicas, shared.questions, shared.inbox) == (None, None, None)
    assert type(shared.pages).__name__ == "LocalPages" and shared.approvals == set()
