--@keys app routes route route_config route_headers
-- Creates a route, and its app record when the app does not exist yet (the caller then lists
-- a new app in the indexes).
-- KEYS: app, routes, route, route-config, route-headers (the app's own hash tag)
-- ARGV: app name, project id, now (ms), path, JSON {"fields": {...}, "config": {...}, "headers": {...}}
-- Returns -2 when the app belongs to another project, -1 when the route exists, 1 when created,
-- 2 when created together with its app.
local owner = redis.call('HGET', KEYS[1], 'project_id')
if owner and owner ~= ARGV[2] then return -2 end
if redis.call('EXISTS', KEYS[3]) == 1 then return -1 end
if not owner then
  redis.call('HSET', KEYS[1], 'name', ARGV[1], 'project_id', ARGV[2], 'created_at', ARGV[3], 'updated_at', ARGV[3])
end
local route = cjson.decode(ARGV[5])
for field, value in pairs(route.fields) do redis.call('HSET', KEYS[3], field, value) end
for key, value in pairs(route.config) do redis.call('HSET', KEYS[4], key, value) end
for key, value in pairs(route.headers) do redis.call('HSET', KEYS[5], key, value) end
redis.call('ZADD', KEYS[2], 0, ARGV[4])
if owner then return 1 end
return 2
