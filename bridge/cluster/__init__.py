"""Team bridge: several replicas share pages, calls, questions and the inbox through Redis (`serve --cluster
redis://…`). Its one entry is `build`, named by bridge/shared/seam.py's table; it may import errors, pages, human
and the seam's types, never the bridge's state.

Needs the optional extra `cluster` (the `redis` client). Without `--cluster` nothing here is imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bridge.cluster.state import Cluster

if TYPE_CHECKING:
    from bridge.shared.seam import Parts, Shared

__all__ = ["Cluster", "build"]


def build(parts: Parts) -> Shared:
    """The redis backend's parts: one Cluster is the page ids and the replicas; its questions, inbox and
    approvals are the other parts."""
    from bridge.shared.seam import Shared

    c = Cluster(parts)
    return Shared(pages=c, replicas=c, questions=c.questions, inbox=c.inbox, approvals=c.approvals,
                  on_start=c.start, on_stop=c.stop)
