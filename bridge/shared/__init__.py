"""Where the state replicas share lives: the seam every backend meets (seam.py) and the local backend (local.py);
the Redis one is bridge/cluster/, named by an import string. May import settings, pages, human's inbox and
questions, and state for types.
"""
