"""What the cluster keeps in Redis: key names, the atomic Lua scripts over instance keys, and the secret hash.

Keys (prefix `dbg:`):
  replica:{rid}   one replica's liveness (its base URL), short TTL, refreshed by the replica
  inst:{id}       one page instance: owner replica, epoch, sha256 of its secret (never the secret), state, info
                  (url, title, origin, attach, frames, channel as JSON); TTL = the page TTL, refreshed by the owner,
                  so it outlives a dead owner for the reservation time as on one machine
  pages           sorted set of instance ids (score 0, ordered by id) that page_list pages through
  inbox           the shared inbox stream (ids 0-N, N from inbox:seq), inbox:status its acks/resolves
  ch:{rid}        pub/sub: exec/cancel frames down to an owner, results back to the caller
  ch:all          pub/sub: page events, inbox items, questions and answers for every replica

Every change to an instance key runs in one Lua script that also publishes the change on ch:all, so every replica
sees the changes of one page in the order Redis applied them.
"""

from __future__ import annotations

import hashlib
import hmac

PREFIX = "dbg:"
ALL = PREFIX + "ch:all"
INDEX = PREFIX + "pages"
INBOX = PREFIX + "inbox"
INBOX_SEQ = PREFIX + "inbox:seq"
INBOX_STATUS = PREFIX + "inbox:status"


def replica_key(rid: str) -> str:
    return f"{PREFIX}replica:{rid}"


def inst_key(iid: str) -> str:
    return f"{PREFIX}inst:{iid}"


def channel(rid: str) -> str:
    return f"{PREFIX}ch:{rid}"


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def secret_matches(stored_hash: str, secret: str) -> bool:
    return bool(stored_hash) and hmac.compare_digest(stored_hash.encode(), secret_hash(secret).encode())


_TAKE = """
local p = ARGV[1]
local me, ttl, now, info, vo = ARGV[7], tonumber(ARGV[8]), ARGV[9], ARGV[10], ARGV[11]
local function take(id, renamed, nsh)
  local k = p .. 'inst:' .. id
  local epoch = redis.call('HINCRBY', k, 'epoch', 1)
  redis.call('HSET', k, 'owner', me, 'sh', nsh, 'vo', vo, 'state', 'reconnecting', 'since', now, 'info', info)
  redis.call('PEXPIRE', k, ttl)
  redis.call('ZADD', p .. 'pages', 0, id)
  redis.call('PUBLISH', p .. 'ch:all', cjson.encode({t = 'page', id = id, owner = me, epoch = epoch,
    state = 'reconnecting', since = tonumber(now), info = info}))
  return {id, epoch, renamed}
end
"""

#: Give a page its id, atomically across replicas, by today's rules: its own id back when it proves it owns it
#: (same secret hash, same verified origin) and the id is not live elsewhere (or it reclaims after an unload), or
#: when the id is free and may be taken (a port id only by that port's origin); else its port if free; else the
#: first free random candidate. A live id is never taken over. Every claim stores the secret the bridge issues now
#: (its hash). Returns {id, epoch, renamed} or nil.
#: ARGV: prefix, asked, asked hash, its new hash, reclaim, port, me, ttl ms, now ms, info json, verified origin,
#:       asked id may be taken if free (1/0), a fresh id's hash, candidates...
CLAIM = _TAKE + """
local asked, ash, reclaim, port = ARGV[2], ARGV[3], ARGV[5] == '1', ARGV[6]
if asked ~= '' and ash ~= '' then
  local rec = redis.call('HMGET', p .. 'inst:' .. asked, 'sh', 'owner', 'state', 'vo')
  if not rec[1] then
    if ARGV[12] == '1' then return take(asked, 0, ARGV[4]) end
  else
    local live = rec[3] == 'live' and redis.call('EXISTS', p .. 'replica:' .. rec[2]) == 1
    if rec[1] == ash and (rec[4] or '') == vo and (reclaim or not live) then return take(asked, 0, ARGV[4]) end
  end
end
local renamed = (asked ~= '') and 1 or 0
if port ~= '' and redis.call('EXISTS', p .. 'inst:' .. port) == 0 then return take(port, renamed, ARGV[13]) end
for i = 14, #ARGV do
  if redis.call('EXISTS', p .. 'inst:' .. ARGV[i]) == 0 then return take(ARGV[i], renamed, ARGV[13]) end
end
return false
"""

#: The owner's change of state (attach, detach, unloading, frames): only the current owner at its epoch may write.
#: ARGV: prefix, id, me, epoch, state, since ms, info json ('' = unchanged), ttl ms
UPDATE = """
local p, id, me, epoch = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local k = p .. 'inst:' .. id
local rec = redis.call('HMGET', k, 'owner', 'epoch')
if rec[1] ~= me or rec[2] ~= epoch then return 0 end
redis.call('HSET', k, 'state', ARGV[5], 'since', ARGV[6])
if ARGV[7] ~= '' then redis.call('HSET', k, 'info', ARGV[7]) end
redis.call('PEXPIRE', k, tonumber(ARGV[8]))
local info = redis.call('HGET', k, 'info')
redis.call('PUBLISH', p .. 'ch:all', cjson.encode({t = 'page', id = id, owner = me, epoch = tonumber(epoch),
  state = ARGV[5], since = tonumber(ARGV[6]), info = info}))
return 1
"""

#: The owner forgets a page (its TTL ran out, or the cockpit's "forget"). ARGV: prefix, id, me, epoch
RELEASE = """
local p, id, me, epoch = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local k = p .. 'inst:' .. id
local rec = redis.call('HMGET', k, 'owner', 'epoch')
if rec[1] and (rec[1] ~= me or rec[2] ~= epoch) then return 0 end
redis.call('DEL', k)
redis.call('ZREM', p .. 'pages', id)
redis.call('PUBLISH', p .. 'ch:all', cjson.encode({t = 'gone', id = id, owner = me, epoch = tonumber(epoch)}))
return 1
"""

#: Append one item to the shared inbox with the next integer id (stream id 0-N), cap the stream, announce it.
#: ARGV: prefix, limit, item json (without id). Returns the id.
INBOX_ADD = """
local p = ARGV[1]
local id = redis.call('INCR', p .. 'inbox:seq')
redis.call('XADD', p .. 'inbox', 'MAXLEN', '~', ARGV[2], '0-' .. id, 'item', ARGV[3])
redis.call('PUBLISH', p .. 'ch:all', cjson.encode({t = 'inbox', id = id, item = ARGV[3]}))
return id
"""
