--@keys enabled processes
-- Enables flags, all or none, once every live process advertises them. Adverts past their
-- expiry are dropped first. ARGV: now (ms), then the flags' names.
-- Returns { 'ok', newly enabled count } or { 'lacking', JSON list of the live adverts lacking one }.
local now = tonumber(ARGV[1])
local names = { unpack(ARGV, 2) }
local lacking, expired = {}, {}
local all = redis.call('HGETALL', KEYS[2])
for i = 1, #all, 2 do
  local advert = cjson.decode(all[i + 1])
  if tonumber(advert.expires_at) <= now then
    expired[#expired + 1] = all[i]
  else
    local known = {}
    for _, name in ipairs(advert.features) do known[name] = true end
    for _, name in ipairs(names) do
      if not known[name] then
        lacking[#lacking + 1] = all[i + 1]
        break
      end
    end
  end
end
if #expired > 0 then redis.call('HDEL', KEYS[2], unpack(expired)) end
if #lacking > 0 then return { 'lacking', '[' .. table.concat(lacking, ',') .. ']' } end
return { 'ok', redis.call('SADD', KEYS[1], unpack(names)) }
