--@keys emails user
-- Moves a user to a new e-mail unless another user holds it.
-- KEYS: emails index, user hash. ARGV: old email (lower), new email (lower), user id, new email as given, updated_at.
if ARGV[1] ~= ARGV[2] then
  local owner = redis.call('HGET', KEYS[1], ARGV[2])
  if owner and owner ~= ARGV[3] then
    return 0
  end
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
end
redis.call('HSET', KEYS[2], 'email', ARGV[4], 'updated_at', ARGV[5])
return 1
