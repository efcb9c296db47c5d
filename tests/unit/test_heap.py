"""The served bridge's collector policy: what is alive is frozen, and a periodic full collection still frees cycles
that were frozen."""

from __future__ import annotations

import gc
import weakref

from bridge.server.heap import Heap


class Node:
    other: object = None


def test_frozen_cycles_outlive_a_normal_collection_and_die_in_the_periodic_full_one():
    try:
        heap = Heap(full_every=3600)
        node = Node()
        node.other = node  # a cycle: only the cyclic collector frees it
        ref = weakref.ref(node)
        heap.settle()
        assert gc.get_freeze_count() > 0
        del node
        gc.collect()
        assert ref() is not None  # frozen: a normal collection does not walk it
        heap.full_every = 0
        heap.settle()
        assert ref() is None
    finally:
        gc.unfreeze()
