-- Shared by the push scripts (after the queue's includes). A push status hash holds one message's
-- status per subscriber (field = subscriber name, value = JSON written by push-store.ts); the scripts
-- take the status hashes after the queue's keys (KEYS[QUEUE_KEY_COUNT + 1], ...).

-- Statuses of the named subscribers in `key` (a subscriber never tried counts as queued).
local function push_statuses(key, names)
  if #names == 0 then return {}, {} end
  local raw = redis.call('HMGET', key, unpack(names))
  local statuses = {}
  for i = 1, #names do statuses[i] = raw[i] and cjson.decode(raw[i]) or { status = 'queued' } end
  return statuses, raw
end

-- Is delivery over? multicast: every subscriber deleted or in error; unicast: one deleted, or all in error.
local function push_done(mode, statuses)
  local finished, deleted = 0, 0
  for _, s in ipairs(statuses) do
    if s.status == 'deleted' then deleted = deleted + 1 end
    if s.status == 'deleted' or s.status == 'error' then finished = finished + 1 end
  end
  if mode == 'unicast' and deleted > 0 then return true end
  return finished == #statuses
end

-- When the message needs the deliverer next: a queued subscriber now, else the earliest retry
-- time or acknowledgement deadline.
local function push_next_due(statuses, now)
  local due = nil
  for _, s in ipairs(statuses) do
    if s.status == 'queued' then return now end
    if (s.status == 'retrying' or s.status == 'reserved') and (due == nil or s.due_at < due) then due = s.due_at end
  end
  return due or now
end
