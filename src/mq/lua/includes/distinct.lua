-- `ids` without repeats, in the order they first appear.
local function distinct(ids)
  local seen, once = {}, {}
  for _, id in ipairs(ids) do
    if not seen[id] then
      seen[id] = true
      once[#once + 1] = id
    end
  end
  return once
end
