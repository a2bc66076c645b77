-- Redis keeps a hash of up to hash-max-listpack-entries fields (512 by default) as a listpack,
-- where finding a field is a scan of the whole list. The reservation hashes (count, rid) of a
-- busy queue hover at a few hundred fields and are emptied (deleted) again and again, so every
-- reserve and delete would scan them once per message. A value longer than
-- hash-max-listpack-value (64 by default) makes a hash a hash table for as long as the key lives:
-- this field, which no message id can name and which stays when the messages go, keeps them so.
local HASH_TABLE_FIELD = '~'
local HASH_TABLE_VALUE = string.rep('~', 128)
local function keep_hash_table(key)
  redis.call('HSETNX', key, HASH_TABLE_FIELD, HASH_TABLE_VALUE)
end
