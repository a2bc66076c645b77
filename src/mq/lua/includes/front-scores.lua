--@include queue-keys.lua
-- Scores in front of everything on the ready set: first, first + 1, ... first + count - 1.
local function front_scores(count)
  return redis.call('HINCRBY', K_QUEUE, 'front', -count)
end
