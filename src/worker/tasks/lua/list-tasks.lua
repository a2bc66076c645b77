--@include task-lib.lua
--@keys indexes...
-- One page of the union of disjoint task indexes (one per status asked for), newest first:
-- by created_at descending, equal times by id descending (ids are time-ordered), as
-- ZREVRANGEBYSCORE orders one index.
-- The work is bounded whatever the offset: a binary search over created_at (ZCOUNT per
-- index, O(log n) each) finds the time of the page's first task, then each index gives at
-- most (tasks skipped at that very time + limit) entries to merge.
-- KEYS: the indexes    ARGV: min, max (created_at ms, or -inf/+inf), offset, limit
local min, max = ARGV[1], ARGV[2]
local offset, limit = tonumber(ARGV[3]), tonumber(ARGV[4])
if #KEYS == 1 then
  return redis.call('ZREVRANGEBYSCORE', KEYS[1], max, min, 'LIMIT', offset, limit)
end

local function count_from(score)
  local count = 0
  for _, key in ipairs(KEYS) do count = count + redis.call('ZCOUNT', key, score, max) end
  return count
end

local low, high
for _, key in ipairs(KEYS) do
  local first = redis.call('ZRANGEBYSCORE', key, min, max, 'WITHSCORES', 'LIMIT', 0, 1)
  local last = redis.call('ZREVRANGEBYSCORE', key, max, min, 'WITHSCORES', 'LIMIT', 0, 1)
  if first[2] then
    local f, l = tonumber(first[2]), tonumber(last[2])
    if not low or f < low then low = f end
    if not high or l > high then high = l end
  end
end
if not low or count_from(low) <= offset then return {} end

-- The largest time with more than `offset` tasks at or after it: the page's first task's.
local a, b = low, high
while a < b do
  local mid = math.floor((a + b + 1) / 2)
  if count_from(mid) > offset then a = mid else b = mid - 1 end
end
local skip = offset - count_from(a + 1)
local want = skip + limit

local lists, heads = {}, {}
for i, key in ipairs(KEYS) do
  lists[i] = redis.call('ZREVRANGEBYSCORE', key, a, min, 'WITHSCORES', 'LIMIT', 0, want)
  heads[i] = 1
end
local page = {}
for taken = 1, want do
  local best
  for i, list in ipairs(lists) do
    local h = heads[i]
    if list[h] then
      if not best then
        best = i
      else
        local bl, bh = lists[best], heads[best]
        local score, best_score = tonumber(list[h + 1]), tonumber(bl[bh + 1])
        if score > best_score or (score == best_score and list[h] > bl[bh]) then best = i end
      end
    end
  end
  if not best then break end
  if taken > skip then page[#page + 1] = lists[best][heads[best]] end
  heads[best] = heads[best] + 2
end
return page
