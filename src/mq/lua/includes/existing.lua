-- Of `keys`, those that exist: hashes only some queues have (push headers, version 1 timeouts)
-- are skipped when absent instead of being sent every id of a batch.
local function existing(keys)
  local found = {}
  for _, key in ipairs(keys) do
    if redis.call('EXISTS', key) == 1 then found[#found + 1] = key end
  end
  return found
end
