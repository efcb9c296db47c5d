"""The bridge's X connections survive a core error on a request with a reply (python-xlib 0.33 parses BadValue as
RandR's BadRRModeError, which has no sequence number, and the connection hung for good: CI, test_typing)."""

from __future__ import annotations

import pytest
from Xlib import X, Xatom
from Xlib import error as xerror

from bridge.desktop.x11.display import open_display


def test_a_bad_value_on_a_reply_is_an_x_error_and_the_connection_goes_on(desk, monkeypatch):
    desk("desktop_status")
    session = desk.service.backend.session
    monkeypatch.setenv("XAUTHORITY", session.env["XAUTHORITY"])
    d = open_display(session.display)
    try:
        root = d.screen().root
        atom = d.intern_atom("DBG_BRIDGE_TEST_TITLE")
        root.change_property(atom, Xatom.STRING, 8, b"short")
        # a second read that starts past the end, as when a title shrinks between get_full_property's two reads
        with pytest.raises(xerror.BadValue):
            root.get_property(atom, X.AnyPropertyType, 100, 10)
        assert root.get_full_property(atom, X.AnyPropertyType).value == b"short"
        root.delete_property(atom)
    finally:
        d.close()
