--@keys revisions stored_bytes
-- Drops one revision's zip from the record (its blob is deleted by the caller) and its bytes
-- from the project's stored-bytes counter, if the record is still as the caller read it.
-- ARGV: index in the revisions list, the record read, the record without its blob, the zip's size.
-- Returns 1 when changed, 0 when the record changed in between (nothing done).
if redis.call('LINDEX', KEYS[1], tonumber(ARGV[1])) ~= ARGV[2] then return 0 end
redis.call('LSET', KEYS[1], tonumber(ARGV[1]), ARGV[3])
local left = tonumber(redis.call('GET', KEYS[2]) or '0') - tonumber(ARGV[4])
redis.call('SET', KEYS[2], math.max(0, left))
return 1
