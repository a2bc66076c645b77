--@keys app app_config
-- Creates an app record unless the name is taken (the caller then lists it in the indexes).
-- KEYS: app, app-config (the app's own hash tag)
-- ARGV: name, project id, now (ms), then config as key, value, key, value...
-- Returns 1 when created, 0 when the name is taken.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'name', ARGV[1], 'project_id', ARGV[2], 'created_at', ARGV[3], 'updated_at', ARGV[3])
if #ARGV > 3 then redis.call('HSET', KEYS[2], unpack(ARGV, 4)) end
return 1
