--@include queue-keys.lua
--@include variadic.lua
--@include front-scores.lua
-- Puts ids at the front of the ready set, keeping their order.
local function to_front(ids)
  if #ids == 0 then return end
  local first = front_scores(#ids)
  local scored = {}
  for i, id in ipairs(ids) do
    scored[#scored + 1] = first + i - 1
    scored[#scored + 1] = id
  end
  variadic('ZADD', K_READY, scored, 2)
end
