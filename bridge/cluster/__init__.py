"""Team bridge: several replicas share pages, calls, questions and the inbox through Redis (`serve --cluster`).

Needs the optional extra `cluster` (the `redis` client). Without `--cluster` nothing here is imported.
"""

from bridge.cluster.state import Cluster

__all__ = ["Cluster"]
