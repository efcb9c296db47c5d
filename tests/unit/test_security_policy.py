"""The Host/Origin policy: the bridge's own names, and the public host names a balancer forwards when given."""

from bridge.server.security import Policy
from bridge.settings import Settings


def test_a_public_host_is_accepted_only_when_given_and_does_not_widen_the_origins():
    plain = Policy(Settings(port=7878))
    assert plain.host_ok("127.0.0.1:7878") and not plain.host_ok("lb.internal:8080")
    behind = Policy(Settings(port=7878, public_hosts=["LB.internal:8080"]))
    assert behind.host_ok("lb.internal:8080", page=True) and behind.host_ok("lb.internal:8080", page=False)
    assert not behind.own_origin("http://lb.internal:8080") and not behind.page_origin("http://lb.internal:8080")


def test_the_page_channel_url_is_the_advertised_one_else_the_bridges_own():
    assert Settings(port=7878).page_channel_url() == "http://127.0.0.1:7878"
    assert Settings(port=7878, advertise_url="http://lb.internal:8080").page_channel_url() == "http://lb.internal:8080"
