#!lua flags=allow-oom
--@include cache-state.lua
-- Deletes an item. ARGV: cache name, item key. Returns 1 when a live item was deleted, else 0.
local name, key = ARGV[1], ARGV[2]
local live = is_live(key, now_ms())
remove_items(name, {key})
refresh(name)
return live and 1 or 0
