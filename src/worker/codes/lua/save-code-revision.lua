--@keys code_names code_index code revisions
-- Adds a revision to a code package, creating the package on its first upload.
-- A compare-and-set: the caller read the name's id and revision count first; if another
-- upload got in between, nothing is written and 0 is returned so the caller retries.
-- KEYS: code-names hash, code index zset, code (JSON string), revisions list
-- ARGV: name, expected id ('' when new), expected revision count, code id,
--       code JSON, revision JSON, created_at ms
local current = redis.call('HGET', KEYS[1], ARGV[1])
if (current or '') ~= ARGV[2] then return 0 end
if redis.call('LLEN', KEYS[4]) ~= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
redis.call('ZADD', KEYS[2], 'NX', ARGV[7], ARGV[4])
redis.call('SET', KEYS[3], ARGV[5])
redis.call('RPUSH', KEYS[4], ARGV[6])
return 1
