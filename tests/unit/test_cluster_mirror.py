"""The cluster's view of other replicas' pages (bridge/cluster/mirror.py): no Redis needed."""

import json

from bridge.cluster.mirror import Mirror, RemoteConnection
from bridge.cluster import redis_state as keys
from tests.support import run_async

INFO = json.dumps({"url": "http://127.0.0.1:5173/", "title": "app", "origin": "http://127.0.0.1:5173",
                   "verified": "http://127.0.0.1:5173", "attach": "script", "channel": "ws",
                   "frames": [{"frameId": "f0", "url": "http://127.0.0.1:5173/inner", "origin": "http://127.0.0.1:5173"}]})


def run(coro):
    return run_async(coro, 10)  # its own loop and thread: an e2e module may own this thread's loop


def make() -> tuple[Mirror, list[tuple[str, str]], list[tuple[str, str, str]]]:
    lost: list[tuple[str, str]] = []
    sent: list[tuple[str, str, str]] = []

    async def send(owner: str, iid: str, text: str) -> None:
        sent.append((owner, iid, text))

    return Mirror("me", send, lambda inst, why: lost.append((inst.id, why))), lost, sent


def test_a_live_page_of_another_replica_is_addressable_and_sends_through_its_owner():
    async def go():
        mirror, lost, sent = make()
        inst = mirror.apply("5173", "rA", 1, "live", 0, INFO)
        assert inst is not None and inst.live and inst.owner == "rA"
        assert inst.verified_origin == "http://127.0.0.1:5173" and "f0" in inst.frames
        assert [i.id for i in mirror.instances.values() if i.live] == ["5173"] and set(inst.frames) == {"f0"}
        await inst.conn.send('{"type":"exec"}')
        assert sent == [("rA", "5173", '{"type":"exec"}')] and not lost
    run(go())


def test_our_own_pages_are_not_mirrored_and_a_page_that_moves_here_leaves_the_mirror():
    async def go():
        mirror, lost, _ = make()
        assert mirror.apply("5173", "me", 1, "live", 0, INFO) is None
        mirror.apply("ab123", "rA", 1, "live", 0, INFO)
        assert mirror.apply("ab123", "me", 2, "reconnecting", 0, INFO) is None
        assert mirror.get("ab123") is None and lost == [("ab123", "moved")]
    run(go())


def test_waiters_are_told_when_the_page_disconnects_unloads_reloads_or_its_owner_dies():
    async def go():
        mirror, lost, _ = make()
        mirror.apply("p1", "rA", 1, "live", 0, INFO)
        mirror.apply("p1", "rA", 1, "unloading", 0, INFO)
        mirror.apply("p1", "rA", 1, "reconnecting", 0, INFO)
        mirror.apply("p1", "rA", 2, "live", 0, INFO)
        mirror.apply("p1", "rA", 3, "live", 0, INFO)
        assert lost == [("p1", "unloading"), ("p1", "disconnected"), ("p1", "reloaded")]
        hit = mirror.owner_died("rA")
        assert [i.id for i in hit] == ["p1"] and lost[-1] == ("p1", "owner_died")
        assert not mirror.get("p1").live
        # an event its owner publishes says it lives (the page reconnected to another replica: a new owner)
        mirror.apply("p1", "rC", 4, "live", 0, INFO)
        assert mirror.get("p1").live and mirror.get("p1").owner == "rC"
    run(go())


def test_the_connection_object_changes_only_with_a_new_channel():
    async def go():
        mirror, _, _ = make()
        inst = mirror.apply("p1", "rA", 1, "live", 0, INFO)
        conn = inst.conn
        mirror.apply("p1", "rA", 1, "live", 0, INFO)  # a frames update
        assert inst.conn is conn and isinstance(conn, RemoteConnection)
        mirror.apply("p1", "rA", 2, "live", 0, INFO)  # reclaimed after a reload
        assert inst.conn is not conn
    run(go())


def test_late_events_and_stale_snapshots_do_not_undo_newer_state():
    async def go():
        mirror, _, _ = make()
        inst = mirror.apply("p1", "rA", 2, "live", 0, INFO)
        mirror.apply("p1", "rB", 1, "reconnecting", 0, INFO)  # from before the reclaim
        assert inst.live and inst.owner == "rA"
        read_at = inst.updated - 1  # a resync that read the record before that event
        mirror.apply("p1", "rA", 2, "reconnecting", 0, INFO, read_at=read_at)
        assert inst.live
    run(go())


def test_redis_keeps_a_hash_of_the_secret_never_the_secret():
    h = keys.secret_hash("s" * 43)
    assert "s" * 43 not in h and len(h) == 64
    assert keys.secret_matches(h, "s" * 43) and not keys.secret_matches(h, "t" * 43) and not keys.secret_matches("", "")


def test_another_replicas_page_shows_its_generation_and_dev_server_updates():
    mirror, _, _ = make()
    info = {**json.loads(INFO), "generation": 2, "dev": {"server": "vite", "updates": 5, "updatedAt": 1700000000000}}
    inst = mirror.apply("5173", "rA", 1, "live", 0, json.dumps(info))
    assert inst is not None and inst.generation == 2 and inst.dev is not None and inst.dev.updates == 5
    inst = mirror.apply("5173", "rA", 1, "live", 0, json.dumps({**info, "dev": {"updates": "many"}}))
    assert inst is not None and inst.dev is None  # a record it cannot read is no update
