--@include queue-keys.lua
--@include plain-expiration.lua
--@include rid-field-holds.lua
--@include expiries.lua
--@include remove-messages.lua
--@include return-lapsed.lua
--@include reserved-and-unexpired.lua
--@include reservation-ends.lua
-- For each ids[i] with reservation rids[i] ('' = none given): may it be acted on? A reservation
-- that ran out is returned to the front here (the message is back on the queue); expired
-- messages are dropped. Returns the outcome per id, and the end of each one's reservation (nil
-- when not reserved; lapsed ones are in the past).
local function check_reservations(ids, rids, now)
  local fields = redis.call('HMGET', K_RID, unpack(ids))
  local until_ms = reservation_ends(ids, fields, now)
  local held, own_expiry = {}, {}
  for i = 1, #ids do held[i], own_expiry[i] = rid_field_holds(fields[i], rids[i]) end
  local plain_ms = plain_expiration()
  local expiry = not reserved_and_unexpired(until_ms, own_expiry, #ids, now, plain_ms) and expiries(ids, plain_ms)
  local outcomes, expired, lapsed = {}, {}, {}
  for i, id in ipairs(ids) do
    local live = until_ms[i] and tonumber(until_ms[i]) > now
    if expiry and not expiry[i] then
      outcomes[i] = NOT_FOUND
    elseif expiry and expiry[i] <= now then
      outcomes[i] = NOT_FOUND
      expired[#expired + 1] = id
    else
      if until_ms[i] and not live then lapsed[#lapsed + 1] = id end
      if rids[i] == ANY_RESERVATION then
        outcomes[i] = OK
      elseif rids[i] == '' then
        outcomes[i] = live and RESERVED or OK
      else
        outcomes[i] = (live and held[i]) and OK or TIMED_OUT
      end
    end
  end
  remove_messages(expired)
  return_lapsed(lapsed)
  return outcomes, until_ms
end
