#!lua flags=allow-oom
--@keys routes route route_config route_headers
-- Deletes a route with its config and headers. Returns 0 when it does not exist.
-- KEYS: routes, route, route-config, route-headers
-- ARGV: path
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
