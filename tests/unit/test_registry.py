"""The registry: which id a page gets, who may take an id back, and when a gone page is forgotten."""

from __future__ import annotations

import re
import time

import pytest

from bridge.pages.protocol import FrameInfo, RegisterRequest
from bridge.pages.registry import OriginMismatch, Registry, TooManyPages

FRESH_ID = re.compile(r"^[a-z]{2}\d{3}$")
OTHER_SECRET = "o" * 43


class Conn:
    kind = "ws"

    def __init__(self) -> None:
        self.closed = False
        self.sent: list[str] = []

    async def send(self, text: str) -> None:
        self.sent.append(text)

    def close(self) -> None:
        self.closed = True


def req(**fields) -> RegisterRequest:
    return RegisterRequest(**fields)


def live(reg: Registry, **fields):
    inst, renamed = reg.register(req(**fields))
    reg.attach(inst, Conn())
    return inst, renamed


def disconnect(reg: Registry, inst) -> None:
    assert reg.detach(inst, inst.conn)


def test_a_page_gets_its_dev_server_port_as_id_when_that_id_is_free():
    reg = Registry(ttl=60)
    inst, renamed = reg.register(req(port=5173, url="http://localhost:5173/"))
    assert inst.id == "5173" and not renamed
    assert inst.url == "http://localhost:5173/"
    assert len(inst.secret) >= 32


def test_a_second_page_on_the_same_port_gets_two_letters_and_three_digits():
    reg = Registry(ttl=60)
    first, _ = live(reg, port=5173)
    second, renamed = reg.register(req(port=5173))
    assert first.id == "5173"
    assert FRESH_ID.match(second.id) and not renamed
    assert second.secret != first.secret


def test_a_page_without_a_port_gets_a_fresh_id_and_fresh_ids_never_collide():
    reg = Registry(ttl=60, max_pending=1000)
    ids = {reg.register(req())[0].id for _ in range(300)}
    assert len(ids) == 300
    assert all(FRESH_ID.match(i) for i in ids)


def test_a_page_that_is_not_live_gets_the_same_id_back_with_its_secret():
    reg = Registry(ttl=60)
    inst, _ = live(reg, port=5173)
    disconnect(reg, inst)
    assert inst.state == "reconnecting"
    again, renamed = reg.register(req(instanceId=inst.id, secret=inst.secret, port=5173, url="http://x/reloaded"))
    assert again is inst and not renamed
    assert again.url == "http://x/reloaded"


def test_a_registered_but_never_connected_page_gets_its_id_back_with_its_secret():
    reg = Registry(ttl=60)
    inst, _ = reg.register(req())
    again, renamed = reg.register(req(instanceId=inst.id, secret=inst.secret))
    assert again is inst and not renamed


def test_a_duplicated_live_tab_with_the_same_credentials_gets_a_fresh_id_and_is_told_so():
    reg = Registry(ttl=60)
    inst, _ = live(reg, port=5173)
    dup, renamed = reg.register(req(instanceId=inst.id, secret=inst.secret, port=5173))
    assert dup is not inst and dup.id != inst.id and FRESH_ID.match(dup.id)
    assert renamed
    assert dup.secret != inst.secret
    assert reg.instances[inst.id] is inst and inst.live


def test_a_reloading_live_page_that_reclaims_keeps_its_id():
    reg = Registry(ttl=60)
    inst, _ = live(reg, port=5173)
    again, renamed = reg.register(req(instanceId=inst.id, secret=inst.secret, reclaim=True))
    assert again is inst and not renamed


def test_a_wrong_secret_never_takes_a_live_id_even_when_reclaiming():
    reg = Registry(ttl=60)
    inst, _ = live(reg, port=5173)
    secret = inst.secret
    for reclaim in (False, True):
        other, renamed = reg.register(req(instanceId=inst.id, secret=OTHER_SECRET, reclaim=reclaim, port=5173))
        assert other is not inst and other.id != inst.id and renamed
    assert reg.instances[inst.id] is inst and inst.secret == secret and inst.live


def test_a_wrong_secret_never_takes_a_reserved_id():
    reg = Registry(ttl=60)
    inst, _ = live(reg)
    disconnect(reg, inst)
    for reclaim in (False, True):
        other, renamed = reg.register(req(instanceId=inst.id, secret=OTHER_SECRET, reclaim=reclaim))
        assert other.id != inst.id and renamed
    assert reg.instances[inst.id] is inst and reg.authenticate(inst.id, OTHER_SECRET) is None


def test_after_a_bridge_restart_a_page_adopts_its_id_with_a_secret_the_bridge_issues():
    before = Registry(ttl=60)
    old, _ = live(before, port=5173)
    after = Registry(ttl=60)  # a new bridge process knows nothing
    inst, renamed = after.register(req(instanceId=old.id, secret=old.secret, port=5173))
    assert inst.id == "5173" and not renamed
    assert inst.secret != old.secret and len(inst.secret) >= 32  # never the page's choice
    assert after.authenticate("5173", old.secret) is None and after.authenticate("5173", inst.secret) is inst
    # ... and a fresh-style id is adopted the same way.
    inst2, renamed2 = after.register(req(instanceId="qz042", secret=OTHER_SECRET))
    assert inst2.id == "qz042" and not renamed2 and inst2.secret != OTHER_SECRET


def test_an_adopted_port_id_is_not_handed_to_a_new_page_on_that_port():
    reg = Registry(ttl=60)
    reg.register(req(instanceId="5173", secret=OTHER_SECRET))
    newcomer, _ = reg.register(req(port=5173))
    assert newcomer.id != "5173" and FRESH_ID.match(newcomer.id)


def test_register_without_a_secret_never_returns_the_asked_id():
    reg = Registry(ttl=60)
    inst, _ = reg.register(req(port=5173))
    other, renamed = reg.register(req(instanceId=inst.id))
    assert other.id != inst.id and renamed


def test_authenticate_needs_the_exact_secret_of_a_known_instance():
    reg = Registry(ttl=60)
    inst, _ = reg.register(req())
    assert reg.authenticate(inst.id, inst.secret) is inst
    assert reg.authenticate(inst.id, OTHER_SECRET) is None
    assert reg.authenticate(inst.id, inst.secret[:-1]) is None
    assert reg.authenticate("zz999", inst.secret) is None


def test_sweep_forgets_pages_gone_longer_than_the_ttl_and_keeps_the_rest():
    reg = Registry(ttl=30)
    expired, _ = live(reg)
    recent, _ = live(reg)
    staying, _ = live(reg)
    disconnect(reg, expired)
    disconnect(reg, recent)
    waiters_of_expired = expired.changed
    expired.since = time.monotonic() - 31  # gone for longer than the TTL
    staying.since = time.monotonic() - 3600  # live pages never expire, however old their timestamp
    gone = reg.sweep()
    assert gone == [expired]
    assert expired.id not in reg.instances
    assert recent.id in reg.instances and staying.id in reg.instances
    assert waiters_of_expired.is_set()
    assert reg.sweep() == []


def test_after_a_sweep_the_expired_id_is_free_again():
    reg = Registry(ttl=30)
    inst, _ = reg.register(req(port=5173))
    inst.since = time.monotonic() - 31
    assert reg.sweep() == [inst]
    assert reg.register(req(port=5173))[0].id == "5173"


def test_expires_in_counts_down_only_while_a_page_is_away():
    reg = Registry(ttl=30)
    inst, _ = live(reg)
    assert reg.expires_in(inst) is None
    disconnect(reg, inst)
    inst.since = time.monotonic() - 10
    left = reg.expires_in(inst)
    assert left is not None and 19 <= left <= 20
    inst.since = time.monotonic() - 100
    assert reg.expires_in(inst) == 0.0


def test_a_new_connection_replaces_and_closes_the_old_one():
    reg = Registry(ttl=30)
    inst, _ = reg.register(req())
    old, new = Conn(), Conn()
    reg.attach(inst, old)
    reg.attach(inst, new)
    assert old.closed and not new.closed and inst.conn is new and inst.live
    # The old connection's late goodbye does not disconnect the page.
    assert reg.detach(inst, old) is False
    assert inst.live
    assert reg.detach(inst, new) is True
    assert not inst.live and inst.state == "reconnecting"


def test_state_changes_wake_waiters_of_the_instance():
    reg = Registry(ttl=30)
    inst, _ = reg.register(req())
    event = inst.changed
    reg.attach(inst, Conn())
    assert event.is_set() and not inst.changed.is_set()
    event = inst.changed
    reg.unloading(inst)
    assert event.is_set() and inst.state == "unloading" and not inst.live


def test_live_page_ids_list_hosts_and_frames_of_live_pages_only():
    reg = Registry(ttl=30)
    a, _ = live(reg, port=5173, frames=[{"frameId": "host"}, {"frameId": "f0", "parent": "host"}])
    b, _ = live(reg, port=3000)
    disconnect(reg, b)
    assert reg.live_page_ids() == ["5173/host", "5173/f0"]


def test_page_rows_show_frames_with_parents_and_never_a_secret():
    reg = Registry(ttl=30)
    inst, _ = live(reg, port=5173, url="http://localhost:5173/", frames=[
        {"frameId": "f0", "parent": "host", "url": "http://localhost:5173/a", "crossOrigin": False},
        {"frameId": "f1", "parent": "f0", "url": "https://other.example/", "crossOrigin": True},
    ])
    away, _ = live(reg, port=3000)
    disconnect(reg, away)
    rows = {r["pageId"]: r for r in reg.page_rows()}
    assert set(rows) == {"5173/host", "5173/f0", "5173/f1", "3000/host"}
    assert rows["5173/f0"]["parent"] == "5173/host" and rows["5173/f1"]["parent"] == "5173/f0"
    assert rows["5173/f1"]["crossOrigin"] is True
    assert rows["5173/host"]["state"] == "live" and rows["5173/host"]["channel"] == "ws"
    assert rows["3000/host"]["state"].startswith("reconnecting (expires in") and rows["3000/host"]["channel"] is None
    text = repr(rows)
    assert inst.secret not in text and away.secret not in text and "secret" not in text


def test_update_frames_replaces_the_frame_list_and_keeps_url_when_not_given():
    reg = Registry(ttl=30)
    inst, _ = live(reg, url="http://a/", frames=[{"frameId": "f0"}])
    reg.update_frames(inst, [FrameInfo(frameId="f2")], None, "New title")
    assert list(inst.frames) == ["f2"] and inst.url == "http://a/" and inst.title == "New title"


def test_authenticate_refuses_a_non_ascii_secret_instead_of_raising():
    reg = Registry(ttl=60)
    inst, _ = reg.register(req())
    assert reg.authenticate(inst.id, "é" * 43) is None
    assert reg.authenticate(inst.id, inst.secret[:-1] + "é") is None


# ---- verified identity (issue 10) ---------------------------------------------------------------------------------

VICTIM = "http://localhost:5173"
ATTACKER = "http://localhost:9999"


def test_a_page_claiming_another_origins_url_or_origin_or_port_is_refused():
    reg = Registry(ttl=60)
    for claim in ({"url": VICTIM + "/"}, {"origin": VICTIM}, {"port": 5173}):
        with pytest.raises(OriginMismatch):
            reg.register(req(**claim), ATTACKER)
    assert reg.instances == {}


def test_a_port_id_goes_only_to_a_page_whose_verified_origin_has_that_port():
    reg = Registry(ttl=60)
    squatter, renamed = reg.register(req(instanceId="5173", secret=OTHER_SECRET, url=ATTACKER + "/"), ATTACKER)
    assert squatter.id != "5173" and renamed and squatter.secret != OTHER_SECRET
    assert squatter.id == "9999"  # its own port is fine
    victim, _ = reg.register(req(url=VICTIM + "/", port=5173), VICTIM)
    assert victim.id == "5173" and victim.verified_origin == VICTIM


def test_a_stolen_secret_from_another_origin_does_not_take_the_page():
    reg = Registry(ttl=60)
    victim, _ = live(reg, url=VICTIM + "/", port=5173)
    victim.verified_origin = VICTIM
    disconnect(reg, victim)
    other, renamed = reg.register(req(instanceId="5173", secret=victim.secret, reclaim=True, url=ATTACKER + "/"),
                                  ATTACKER)
    assert other is not victim and renamed and reg.instances["5173"] is victim


def test_a_flood_from_one_origin_is_capped_and_never_touches_live_pages():
    reg = Registry(ttl=60, max_pending=5)
    victim, _ = reg.register(req(url=VICTIM + "/"), VICTIM)
    reg.attach(victim, Conn())
    for _ in range(5):
        reg.register(req(url=ATTACKER + "/x"), ATTACKER)
    with pytest.raises(TooManyPages):
        reg.register(req(url=ATTACKER + "/x"), ATTACKER)
    assert reg.instances["5173"] is victim and victim.live and victim.url == VICTIM + "/"
    reg.register(req(url=VICTIM + "/second"), VICTIM)  # another origin is not held up


def test_a_reservation_kept_across_a_restart_goes_back_only_to_its_origin_with_a_new_secret(tmp_path):
    store = tmp_path / "pages.json"
    before = Registry(ttl=60)
    before.persist_to(store)
    victim, _ = before.register(req(url=VICTIM + "/", port=5173), VICTIM)
    before.save()
    after = Registry(ttl=60)
    assert after.persist_to(store) == 1
    squat, renamed = after.register(req(instanceId="5173", secret=victim.secret, url=ATTACKER + "/"), ATTACKER)
    assert squat.id != "5173" and renamed
    back, renamed = after.register(req(instanceId="5173", secret=victim.secret, url=VICTIM + "/", port=5173), VICTIM)
    assert back.id == "5173" and not renamed and back.secret not in ("", victim.secret)


def test_a_blob_or_about_blank_document_of_the_origin_is_not_a_mismatch():
    reg = Registry(ttl=60)
    blob, _ = reg.register(req(url=f"blob:{VICTIM}/1b2c"), VICTIM)
    blank, _ = reg.register(req(url="about:blank"), VICTIM)
    assert blob.verified_origin == blank.verified_origin == VICTIM
    with pytest.raises(OriginMismatch):
        reg.register(req(url=f"blob:{ATTACKER}/1b2c"), VICTIM)


def test_closed_tabs_of_one_origin_do_not_count_as_a_flood():
    reg = Registry(ttl=60, max_pending=5)
    for _ in range(20):  # a developer opening and closing tabs of the app: each one connected, then went away
        tab, _ = reg.register(req(url=VICTIM + "/"), VICTIM)
        conn = Conn()
        reg.attach(tab, conn)
        reg.detach(tab, conn)
    tab, _ = reg.register(req(url=VICTIM + "/"), VICTIM)
    assert not tab.live and len(reg.instances) == 21


def test_connecting_once_and_leaving_is_no_way_around_the_flood_cap():
    reg = Registry(ttl=60, max_pending=2)
    for _ in range(32):  # 16 x max_pending reservations of tabs that connected once
        inst, _ = reg.register(req(url=ATTACKER + "/x"), ATTACKER)
        reg.attach(inst, Conn())
        disconnect(reg, inst)
    with pytest.raises(TooManyPages):
        reg.register(req(url=ATTACKER + "/x"), ATTACKER)
    reg.register(req(url=VICTIM + "/"), VICTIM)


def test_page_list_carries_the_tabs_generation_and_its_dev_servers_updates_and_why_the_last_failed():
    from bridge.pages.protocol import DevError, DevInfo

    reg = Registry(ttl=60)
    inst, _ = reg.register(req(port=5173, url="http://localhost:5173/", generation=3))
    assert {k: reg.page_rows()[0].get(k) for k in ("generation", "updates")} == {"generation": 3, "updates": None}
    failed = DevInfo(server="vite", updates=2, updatedAt=1700000000000, error=DevError(
        message="Transform failed with 1 error:\n[PARSE_ERROR] Unexpected token\n  ╭─[ src/App.jsx:11:19 ]",
        file="src/App.jsx", line=11, column=19))
    reg.dev_update(inst, failed)
    row = reg.page_rows()[0]
    assert (row["generation"], row["updates"], row["updatedAt"]) == (3, 2, 1700000000000)
    assert row["updateError"] == "[PARSE_ERROR] Unexpected token at src/App.jsx:11:19"
    reg.dev_update(inst, DevInfo(server="vite", updates=3, updatedAt=1700000000500))
    assert "updateError" not in reg.page_rows()[0]
