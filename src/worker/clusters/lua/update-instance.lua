--@keys machines
-- Moves an instance record to another type (and/or records its provider id), only from the
-- types allowed, so the autoscaler, the terminate request and runners never undo each other.
-- KEYS[1] the cluster's machines hash; ARGV: instance id, new type ('' keeps it),
-- provider id ('' keeps it), now (ms), allowed current types...
-- Returns 1 when changed, 0 otherwise.
local json = redis.call('HGET', KEYS[1], ARGV[1])
if not json then return 0 end
local record = cjson.decode(json)
local allowed = false
for i = 5, #ARGV do
  if record.type == ARGV[i] then allowed = true end
end
if not allowed then return 0 end
if ARGV[2] ~= '' then record.type = ARGV[2] end
if ARGV[3] ~= '' then record.provider_id = ARGV[3] end
record.updated_at = tonumber(ARGV[4])
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(record))
return 1
