"""Where the state replicas share lives: the seam's small parts and the table that picks a backend by the
--cluster URL (seam.py), and the local backend (local.py); the Redis one is bridge/cluster/, named by an import
string. May import settings, pages, human's inbox and questions (for types); never the bridge's state.
"""
