"""What replicas say to each other is typed (bridge/cluster/messages.py): parsed at the bus's edge, refused when it
is no known kind, and the same shapes the Lua scripts publish."""

import json

import pytest
from pydantic import ValidationError

from bridge.cluster import messages as m


def test_a_down_frame_round_trips_with_its_wire_names():
    sent = m.dump(m.Down(id="5173", from_="r1", text='{"type":"ping"}'))
    assert json.loads(sent) == {"v": 1, "t": "down", "id": "5173", "from": "r1", "text": '{"type":"ping"}'}
    assert m.parse(sent) == m.Down(id="5173", from_="r1", text='{"type":"ping"}')


def test_the_lua_scripts_page_message_parses_without_a_version():
    raw = json.dumps({"t": "page", "id": "5173", "owner": "r1", "epoch": 3, "state": "live", "since": 1.5,
                      "info": "{}"})
    page = m.parse(raw)
    assert isinstance(page, m.Page) and (page.epoch, page.state, page.v) == (3, "live", 1)


def test_an_unknown_or_malformed_message_is_refused():
    for raw in ('{"t": "nonsense"}', '{"t": "mark", "ids": "all"}', "not json"):
        with pytest.raises(ValidationError):
            m.parse(raw)
