--@keys record maps...
-- Updates an existing record hash and the map hashes beside it (config, headers) at once.
-- KEYS[1]: the record hash; KEYS[2..]: its map hashes, in the order of change.maps
-- ARGV[1]: JSON {"fields": {name: value}, "unset": [name], "maps": [{"set": {k: v}, "remove": [k]}]}
-- Returns 0 when the record does not exist.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local change = cjson.decode(ARGV[1])
for field, value in pairs(change.fields) do redis.call('HSET', KEYS[1], field, value) end
for _, field in ipairs(change.unset) do redis.call('HDEL', KEYS[1], field) end
for i, map in ipairs(change.maps) do
  for key, value in pairs(map.set) do redis.call('HSET', KEYS[i + 1], key, value) end
  for _, key in ipairs(map.remove) do redis.call('HDEL', KEYS[i + 1], key) end
end
return 1
