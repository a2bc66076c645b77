#!lua flags=allow-oom
--@keys code_names code_index code revisions
-- Deletes a code package and its revisions; returns 0 when it does not exist.
-- KEYS: code-names hash, code index zset, code, revisions list
-- ARGV: code id, name
if redis.call('EXISTS', KEYS[3]) == 0 then return 0 end
if redis.call('HGET', KEYS[1], ARGV[2]) == ARGV[1] then redis.call('HDEL', KEYS[1], ARGV[2]) end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('UNLINK', KEYS[3], KEYS[4])
return 1
