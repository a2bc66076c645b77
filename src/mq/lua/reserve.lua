#!lua flags=allow-oom
--@include includes/queue-keys.lua
--@include includes/plain-layout.lua
--@include includes/queue-record.lua
--@include includes/variadic.lua
--@include includes/plain-allowed.lua
--@include includes/rid-expiry-suffix.lua
--@include includes/expiries.lua
--@include includes/keep-hash-table.lua
--@include includes/remove-records.lua
--@include includes/remove-messages.lua
--@include includes/maintain.lua
--@include includes/evaluate-alerts.lua
--@include includes/next-due.lua
--@include includes/remove-allowed.lua
-- Reserves up to n messages from the front of the queue (after maintain()). Messages whose
-- reserved_count already reached the dead letter threshold are moved to the dead letter
-- outbox instead (dead-letters.ts hands them to the dead letter queue).
-- ARGV: n, timeout (s; 0 = each message's own, else the queue's: the rule clients are held to is
-- reservationOf in messages/reservation.ts), delete ('1' removes the
-- messages at once), reservation id prefix, default timeout (s), '1' when plain messages may be
-- written (else a plain message taken gets an expiry entry and a plain rid field: PLAIN_EXPIRATION),
-- the bodies' form in the reply ('bytes': as they are stored, else a JSON list), k (how many
-- messages to delete first, 0 for none: ack-and-next), then k message ids and their k
-- reservation ids: each one is deleted under the batch delete's rules (check_reservations), but
-- one by one: those that may not be deleted stay as they are and are reported.
-- Returns -1 for a missing queue, else { moved, expired (messages dropped as expired), due (next
-- due ms or -1), timeout (the queue's or the given one), alerts (fired, see evaluate_alerts), then
-- the reserved messages' ids, reservation ids and reserved_counts, each joined by commas, their
-- bodies as one JSON list of strings (cjson's) or, with 'bytes', one after the other as stored,
-- their push headers (JSON text or '' each) as one JSON list or '' when the queue has none, and
-- their timeouts (s) joined by commas or '' when each is the timeout returned, the k deletes'
-- outcomes joined by commas (0 = deleted) or '', and with 'bytes' the bodies' byte lengths joined
-- by commas (a push delivery passes the bytes on without decoding them: no JSON either way) }.
-- script-io.ts reserveResult reads it.

-- Each reserved message's suffix of the call's reservation id prefix: its place in the batch, in
-- hex (written out here: string.format per message costs a printf each).
local HEX_PLACE = {
  '00', '01', '02', '03', '04', '05', '06', '07', '08', '09', '0a', '0b', '0c', '0d', '0e', '0f',
  '10', '11', '12', '13', '14', '15', '16', '17', '18', '19', '1a', '1b', '1c', '1d', '1e', '1f',
  '20', '21', '22', '23', '24', '25', '26', '27', '28', '29', '2a', '2b', '2c', '2d', '2e', '2f',
  '30', '31', '32', '33', '34', '35', '36', '37', '38', '39', '3a', '3b', '3c', '3d', '3e', '3f',
  '40', '41', '42', '43', '44', '45', '46', '47', '48', '49', '4a', '4b', '4c', '4d', '4e', '4f',
  '50', '51', '52', '53', '54', '55', '56', '57', '58', '59', '5a', '5b', '5c', '5d', '5e', '5f',
  '60', '61', '62', '63', '64', '65', '66', '67', '68', '69', '6a', '6b', '6c', '6d', '6e', '6f',
  '70', '71', '72', '73', '74', '75', '76', '77', '78', '79', '7a', '7b', '7c', '7d', '7e', '7f',
  '80', '81', '82', '83', '84', '85', '86', '87', '88', '89', '8a', '8b', '8c', '8d', '8e', '8f',
  '90', '91', '92', '93', '94', '95', '96', '97', '98', '99', '9a', '9b', '9c', '9d', '9e', '9f',
  'a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8', 'a9', 'aa', 'ab', 'ac', 'ad', 'ae', 'af',
  'b0', 'b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7', 'b8', 'b9', 'ba', 'bb', 'bc', 'bd', 'be', 'bf',
  'c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9', 'ca', 'cb', 'cc', 'cd', 'ce', 'cf',
  'd0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8', 'd9', 'da', 'db', 'dc', 'dd', 'de', 'df',
  'e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e8', 'e9', 'ea', 'eb', 'ec', 'ed', 'ee', 'ef',
  'f0', 'f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7', 'f8', 'f9', 'fa', 'fb', 'fc', 'fd', 'fe', 'ff',
}

-- The ready scores (text) of the set's first `count` messages. Messages posted together share
-- their score, so the scores are read one run of equal scores at a time (ZCOUNT), up to
-- MAX_SCORE_RUNS runs; the rest, if any, one by one (WITHSCORES writes each score as text).
local MAX_SCORE_RUNS = 4
local function front_ready_scores(count)
  local scores, at = {}, 0
  for _ = 1, MAX_SCORE_RUNS do
    if at >= count then return scores end
    local score = redis.call('ZRANGE', K_READY, at, at, 'WITHSCORES')[2]
    local run = redis.call('ZCOUNT', K_READY, score, score)
    for i = at + 1, math.min(at + run, count) do scores[i] = score end
    at = at + run
  end
  if at < count then
    local rest = redis.call('ZRANGE', K_READY, at, count - 1, 'WITHSCORES')
    for i = 2, #rest, 2 do scores[at + i / 2] = rest[i] end
  end
  return scores
end

-- Deletes the k messages given after the fixed arguments (ARGV[8]) that may be deleted; returns
-- how many were, and each one's outcome joined by commas ('' for none given).
local function delete_acknowledged(now)
  local k = tonumber(ARGV[8] or '0')
  if k == 0 then return 0, '' end
  local ids, rids = { unpack(ARGV, 9, 8 + k) }, { unpack(ARGV, 9 + k, 8 + 2 * k) }
  local removed, outcomes = remove_allowed(ids, rids, now)
  return removed, table.concat(outcomes, ',')
end

local head = queue_record('timeout', 'dead_letter', 'alerts', 'alert_size', PLAIN_EXPIRATION)
if not head[1] then return -1 end
local now = now_ms()
local acknowledged, ack_outcomes = delete_acknowledged(now)
local expired = maintain(now)
local n, timeout = tonumber(ARGV[1]), tonumber(ARGV[2])
local delete, prefix = ARGV[3] == '1', ARGV[4]
local own_timeouts = timeout == 0
if own_timeouts then timeout = tonumber(head[2] or ARGV[5]) end
local max_reservations, dead_letter_queue
local dead_letter = head[3]
if dead_letter then
  local setting = cjson.decode(dead_letter)
  max_reservations, dead_letter_queue = tonumber(setting.max_reservations), setting.queue_name
end

local with_headers = redis.call('EXISTS', K_HEADERS) == 1
local with_timeouts = own_timeouts and redis.call('EXISTS', K_TIMEOUT) == 1

-- maintain() dropped every expired message unless it stopped at its batch: only then is each
-- message's expiry read here.
local expired_left = expired >= BATCH
-- Plain messages taken alive keep their expiry (ready score plus plain_ms) in their rid field, for
-- which the scores are read; with delete they leave no record, and no score is read unless
-- expiries are.
local plain_ms = tonumber(head[6] or '')
local with_scores = plain_ms and (expired_left or not delete)

local got, moved = 0, 0
-- The reserved messages' ids, reserved_counts, reservation ids, bodies, push headers (when the
-- queue has some) and own timeouts (when some message has one).
local taken, out_counts, out_rids, out_bodies, out_headers, timeouts = {}, {}, {}, {}, {}, {}
local taken_bytes = 0
-- The ready scores (text) of the messages taken, when read.
local taken_scores = {}
for _ = 1, 10 do
  if got >= n then break end
  -- The front of the ready set, popped: ZRANGE and ZREMRANGEBYRANK write no scores, which
  -- makes them much cheaper than ZPOPMIN.
  local ids = redis.call('ZRANGE', K_READY, 0, n - got - 1)
  if #ids == 0 then break end
  local scores = with_scores and front_ready_scores(#ids) or {}
  redis.call('ZREMRANGEBYRANK', K_READY, 0, #ids - 1)
  local expiry = expired_left and expiries(ids, plain_ms, scores)
  local bodies = redis.call('HMGET', K_BODY, unpack(ids))
  local previous = redis.call('HMGET', K_COUNT, unpack(ids))
  local headers = with_headers and redis.call('HMGET', K_HEADERS, unpack(ids)) or {}
  local own = with_timeouts and redis.call('HMGET', K_TIMEOUT, unpack(ids)) or {}
  local gone = {}
  for i, id in ipairs(ids) do
    local count = previous[i] and tonumber(previous[i]) or 0
    if not bodies[i] or (expiry and (not expiry[i] or expiry[i] <= now)) then
      gone[#gone + 1] = id
      if expiry and expiry[i] then expired = expired + 1 end
    elseif max_reservations and count >= max_reservations then
      redis.call('RPUSH', K_DEAD, cjson.encode({ id = id, body = bodies[i], reserved_count = count, push_headers = headers[i] or '', queue = dead_letter_queue }))
      gone[#gone + 1] = id
      moved = moved + 1
    else
      local rid = prefix .. (HEX_PLACE[got + 1] or string.format('%02x', got))
      got = got + 1
      taken[got] = id
      taken_bytes = taken_bytes + #bodies[i]
      -- As text once: both the count hash and the answer take it (Lua writes a number anew each
      -- time, through printf); a first reservation's is the constant.
      out_counts[got] = previous[i] and tostring(count + 1) or '1'
      out_rids[got] = rid
      out_bodies[got] = bodies[i]
      if with_headers then out_headers[got] = headers[i] or '' end
      if with_timeouts then timeouts[got] = tonumber(own[i] or timeout) end
      if with_scores then taken_scores[got] = scores[i] end
    end
  end
  remove_messages(gone)
end

if got > 0 then
  if delete then
    -- Popped from the ready set: only their records are left.
    remove_records(taken, {}, taken_bytes)
  else
    keep_hash_table(K_COUNT)
    keep_hash_table(K_RID)
    local counts, rids, reserved = {}, {}, {}
    local deadline = string.format('%d', now + timeout * 1000)
    -- Messages with an expiry entry of their own (only when the queue has some) are not plain.
    local indexed = (with_scores and redis.call('EXISTS', K_EXPIRY) == 1) and redis.call('ZMSCORE', K_EXPIRY, unpack(taken)) or {}
    -- The rid field's expiry suffix per ready score (false: not a plain message's score).
    local suffixes = {}
    -- Without the plain layout, plain messages taken get an expiry entry instead of a suffix.
    local plain, entries = plain_allowed(ARGV[6]), {}
    for t, id in ipairs(taken) do
      local score, suffix = taken_scores[t], false
      if score and not indexed[t] then
        suffix = suffixes[score]
        if suffix == nil then
          local ms = tonumber(score)
          suffix = ms > 0 and rid_expiry_suffix(ms + plain_ms)
          suffixes[score] = suffix
        end
        if suffix and not plain then
          entries[#entries + 1] = tonumber(score) + plain_ms
          entries[#entries + 1] = id
          suffix = false
        end
      end
      counts[2 * t - 1], counts[2 * t] = id, out_counts[t]
      rids[2 * t - 1], rids[2 * t] = id, suffix and out_rids[t] .. suffix or out_rids[t]
      reserved[2 * t - 1], reserved[2 * t] = with_timeouts and now + timeouts[t] * 1000 or deadline, id
    end
    if #entries > 0 then variadic('ZADD', K_EXPIRY, entries, 2, 'NX') end
    variadic('HSET', K_COUNT, counts, 2)
    variadic('HSET', K_RID, rids, 2)
    variadic('ZADD', K_RESERVED, reserved, 2)
  end
end
local alerts = (delete or moved > 0 or acknowledged > 0) and evaluate_alerts(now, { head[4], head[5] }) or '[]'
local due = got == 0 and next_due() or -1
local headers_json = (with_headers and got > 0) and cjson.encode(out_headers) or ''
local timeouts_text = (with_timeouts and got > 0) and table.concat(timeouts, ',') or ''
local reply = { moved, expired, due, timeout, alerts, table.concat(taken, ','), table.concat(out_rids, ','), table.concat(out_counts, ','), '', headers_json, timeouts_text, ack_outcomes }
if ARGV[7] == 'bytes' then
  local lengths = {}
  for i, body in ipairs(out_bodies) do lengths[i] = #body end
  reply[9], reply[13] = table.concat(out_bodies), table.concat(lengths, ',')
else
  -- cjson writes an empty list as {}.
  reply[9] = got == 0 and '[]' or cjson.encode(out_bodies)
end
return reply
