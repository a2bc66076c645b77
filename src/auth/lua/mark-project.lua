#!lua flags=allow-oom
--@keys sets...
-- Lists a project in the identity's sorted sets of a suspension or a deletion (suspended or
-- resumed; deleted and to purge), on a full Redis too (allow-oom): a member per project in sets
-- under {auth}, no tenant data, and what lets its work stop and its data be purged.
-- ARGV: project id, score (ms). Returns how many sets.
for _, key in ipairs(KEYS) do redis.call('ZADD', key, ARGV[2], ARGV[1]) end
return #KEYS
