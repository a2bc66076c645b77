--@keys emails users user
-- Creates a user unless its e-mail is taken.
-- KEYS: emails index, users set, user hash. ARGV: email (lower case), user id, field/value pairs...
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], 0, ARGV[2])
redis.call('HSET', KEYS[3], unpack(ARGV, 3))
return 1
