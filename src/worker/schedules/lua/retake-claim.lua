--@keys claimed
-- Takes over a claimed run left unqueued, if nobody else took it since it was read.
-- KEYS: claimed set
-- ARGV: claimed member, expected claim time, now
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
