--@include queue-keys.lua
--@include rid-parts.lua
--@include check-reservation.lua
-- Check of one message for touch and release: { outcome } on refusal, { OK } for a live
-- reservation. `rid` ANY_RESERVATION accepts the message's current reservation, if any.
local function check_live_reservation(id, rid, now)
  local given = rid
  if given == ANY_RESERVATION then rid = rid_parts(redis.call('HGET', K_RID, id)) or '' end
  local outcome = check_reservation(id, rid, now)
  if outcome ~= OK then return outcome end
  if rid == '' then return given == ANY_RESERVATION and NOT_RESERVED or TIMED_OUT end
  return OK
end
