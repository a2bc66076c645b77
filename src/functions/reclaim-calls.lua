--@keys in_flight pending holders
-- Gives the calls a dead runner had taken back to the front of the queue, oldest first in line.
-- KEYS: the runner's in-flight list, pending, holders ; ARGV: runner id. Returns how many moved.
local moved = 0
while redis.call('LMOVE', KEYS[1], KEYS[2], 'LEFT', 'RIGHT') do moved = moved + 1 end
redis.call('SREM', KEYS[3], ARGV[1])
return moved
