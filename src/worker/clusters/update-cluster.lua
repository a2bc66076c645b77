--@keys cluster
-- Replaces a cluster's record and sealed secrets if nobody changed it since it was read.
-- KEYS[1] cluster hash; ARGV: expected revision, record JSON, sealed secrets.
-- Returns 1 when saved, 0 when the revision moved on, -1 when the cluster is gone.
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HGET', KEYS[1], 'rev') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[2], 'secrets', ARGV[3], 'rev', tonumber(ARGV[1]) + 1)
return 1
