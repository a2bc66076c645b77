--@keys index
-- Adds a name to a sorted-set index (score 0) unless the index already holds `most` names: the
-- index is the count a quota bounds, so checking and adding in one step lets no race pass it.
-- ARGV: name, most.
-- Returns 1 when the name was there already, 2 when it was added, 0 when refused.
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], 0, ARGV[1])
return 2
