--@keys decided enabled
-- The flags' first state, decided once per Redis: a store with no Ferrum data yet enables every
-- flag this release knows; one written by a release before flags existed enables none.
-- ARGV: '1' when the store held no Ferrum data, now (ms), then the names of the known flags.
-- Returns the enabled flags.
if redis.call('EXISTS', KEYS[1]) == 0 then
  local fresh = ARGV[1] == '1'
  redis.call('SET', KEYS[1], (fresh and 'fresh@' or 'earlier-data@') .. ARGV[2])
  if fresh and #ARGV > 2 then redis.call('SADD', KEYS[2], unpack(ARGV, 3)) end
end
return redis.call('SMEMBERS', KEYS[2])
