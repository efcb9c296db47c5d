"""The cockpit's Agents table counts an agent once: on a 2025-11-25 bridge each session is one, and on a --stateless
bridge (every request a connection of its own) the client's name and version are, as its leases know it."""

from __future__ import annotations

from types import SimpleNamespace

from bridge.server.agents import Agents, holder


def request(name: str) -> SimpleNamespace:
    """A request context as the SDK gives one: protocol 2025-11-25, on a connection of its own."""
    info = SimpleNamespace(name=name, version="1.0")
    conn = SimpleNamespace(client_params=SimpleNamespace(client_info=info))
    return SimpleNamespace(protocol_version="2025-11-25", session=SimpleNamespace(_connection=conn))


def test_a_stateless_bridge_counts_one_agent_per_client_not_one_per_request():
    table = Agents(stateless=True)
    for _ in range(5):
        table.seen(request("editor-agent"), "page_exec")
    table.seen(request("terminal-agent"), "page_list")
    rows = table.rows()
    assert [(r["name"], r["calls"]) for r in rows] == [("terminal-agent", 1), ("editor-agent", 5)]
    assert table.first_time(request("editor-agent"), "note") and not table.first_time(request("editor-agent"), "note")
    assert holder(request("editor-agent"), True)[0] == holder(request("editor-agent"), True)[0]


def test_with_sessions_each_connection_is_an_agent_of_its_own():
    table = Agents()
    one, two = request("editor-agent"), request("editor-agent")  # both connections open (an id is not reused)
    table.seen(one)
    table.seen(two)
    table.seen(one)
    assert sorted(r["calls"] for r in table.rows()) == [1, 2]
    assert len(table.rows()) == 2
