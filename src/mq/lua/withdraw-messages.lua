#!lua flags=allow-oom
--@include includes/queue-keys.lua
--@include includes/remove-allowed.lua
-- Takes back the messages of a post whose later chunk was refused (a full Redis), so that a post
-- stores all its messages or none: removes those of the given ids still on the queue, reserved
-- or not. It only removes, so it runs on a full Redis too (allow-oom).
-- ARGV: the ids. Returns how many were removed.
if redis.call('EXISTS', K_QUEUE) == 0 then return 0 end
local now = now_ms()
local anyone = {}
for i = 1, #ARGV do anyone[i] = ANY_RESERVATION end
return (remove_allowed(ARGV, anyone, now))
