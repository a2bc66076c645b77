--@keys app app_config route route_config route_headers
-- Reads an app and one of its routes in one round trip (every call does this).
-- KEYS: app, app-config, route, route-config, route-headers
return {
  redis.call('HGETALL', KEYS[1]),
  redis.call('HGETALL', KEYS[2]),
  redis.call('HGETALL', KEYS[3]),
  redis.call('HGETALL', KEYS[4]),
  redis.call('HGETALL', KEYS[5]),
}
