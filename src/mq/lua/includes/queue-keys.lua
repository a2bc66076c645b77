--@keys queue ready delayed reserved expiry body count rid headers released dead timeout
-- The keys and shared constants of one queue's message scripts (each includes this first).
-- KEYS, all under the queue's hash tag:
local K_QUEUE, K_READY, K_DELAYED, K_RESERVED, K_EXPIRY = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local K_BODY, K_COUNT, K_RID, K_HEADERS, K_RELEASED, K_DEAD = KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11]
-- Per-message reservation timeouts (s), only for messages posted with one (version 1).
local K_TIMEOUT = KEYS[12]
-- How many keys a queue has (scripts.ts QUEUE_KEY_PARTS); scripts that take more keys find them after these.
local QUEUE_KEY_COUNT = 12

-- Most items handled by one maintenance pass, and per variadic command (Lua's unpack limit).
local BATCH = 1000
local CHUNK = 500

-- Outcome codes shared with scripts.ts.
local OK, NOT_FOUND, TIMED_OUT, RESERVED, NOT_RESERVED = 0, 1, 2, 3, 4

-- A reservation id standing for whatever reservation the message has (version 1 has none).
local ANY_RESERVATION = '*'

--@include ../../../core/lua/clock.lua
