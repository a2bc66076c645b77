--@include queue-keys.lua
-- Calls redis command `command` on `key` with `args` (a flat list), in chunks of `width` items;
-- `option` (e.g. 'NX'), when given, goes before each chunk.
local function variadic(command, key, args, width, option)
  width = width or 1
  local step = CHUNK * width
  for first = 1, #args, step do
    if option then
      redis.call(command, key, option, unpack(args, first, math.min(first + step - 1, #args)))
    else
      redis.call(command, key, unpack(args, first, math.min(first + step - 1, #args)))
    end
  end
end
