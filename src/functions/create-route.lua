--@keys apps project_apps app routes route route_config route_headers
-- Creates a route, and its app when the app does not exist yet.
-- Returns -2 when the app belongs to another project, -1 when the route exists, 1 when created.
-- KEYS: apps, project-apps, app, routes, route, route-config, route-headers
-- ARGV: app name, project id, now (ms), path, JSON {"fields": {...}, "config": {...}, "headers": {...}}
local owner = redis.call('HGET', KEYS[3], 'project_id')
if owner and owner ~= ARGV[2] then return -2 end
if redis.call('EXISTS', KEYS[5]) == 1 then return -1 end
if not owner then
  redis.call('HSET', KEYS[3], 'name', ARGV[1], 'project_id', ARGV[2], 'created_at', ARGV[3], 'updated_at', ARGV[3])
  redis.call('ZADD', KEYS[1], 0, ARGV[1])
  redis.call('ZADD', KEYS[2], 0, ARGV[1])
end
local route = cjson.decode(ARGV[5])
for field, value in pairs(route.fields) do redis.call('HSET', KEYS[5], field, value) end
for key, value in pairs(route.config) do redis.call('HSET', KEYS[6], key, value) end
for key, value in pairs(route.headers) do redis.call('HSET', KEYS[7], key, value) end
redis.call('ZADD', KEYS[4], 0, ARGV[4])
return 1
