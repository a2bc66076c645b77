--@keys cluster user_indexes...
-- Replaces a cluster's record and sealed secrets if nobody changed it since it was read, and
-- moves the cluster between its users' indexes (the users it stops and starts being shared to).
-- KEYS[1] cluster hash; KEYS[2..] the indexes of users who lose it (the first ARGV[4] of them),
-- then of users who gain it.
-- ARGV: expected revision, record JSON, sealed secrets, how many user indexes lose it, cluster id.
-- Returns 1 when saved, 0 when the revision moved on, -1 when the cluster is gone.
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HGET', KEYS[1], 'rev') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[2], 'secrets', ARGV[3], 'rev', tonumber(ARGV[1]) + 1)
local losing = tonumber(ARGV[4])
for i = 2, #KEYS do
  if i - 1 <= losing then
    redis.call('SREM', KEYS[i], ARGV[5])
  else
    redis.call('SADD', KEYS[i], ARGV[5])
  end
end
return 1
