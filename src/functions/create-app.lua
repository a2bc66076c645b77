--@keys apps project_apps app app_config
-- Creates an app unless the name is taken.
-- KEYS: apps, project-apps, app, app-config
-- ARGV: name, project id, now (ms), then config as key, value, key, value...
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
redis.call('HSET', KEYS[3], 'name', ARGV[1], 'project_id', ARGV[2], 'created_at', ARGV[3], 'updated_at', ARGV[3])
if #ARGV > 3 then redis.call('HSET', KEYS[4], unpack(ARGV, 4)) end
redis.call('ZADD', KEYS[1], 0, ARGV[1])
redis.call('ZADD', KEYS[2], 0, ARGV[1])
return 1
