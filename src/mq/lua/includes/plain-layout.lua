-- Plain messages: posted without a delay or an expiration of their own, with the queue's
-- message_expiration when it equals the record's field plain_expiration_ms. They have no entry on
-- the expiry set (writing one per message was a fifth of a post's cost in Redis):
-- - on the ready set, a plain message's score is the time it was posted and its expiry that
--   score plus plain_expiration_ms;
-- - reserved, its rid field holds its expiry after its reservation id (rid_expiry_suffix);
-- - released or timed out, it gets an entry (index_reserved_plain) and a score at or below 0.
-- So a ready score above 0 without an expiry entry is a plain message's. Every other message has
-- an entry from the start. The field changes only while the ready set is empty (post-messages),
-- when no plain message depends on it.
-- This layout is the storage feature flag plain_messages (src/core/features/feature-registry.ts):
-- a script that writes messages is told whether it is enabled (plain_allowed). Until it is, every
-- message gets an expiry entry, a reserved one's rid field is its reservation id alone and the
-- record gets no plain_expiration_ms, which is what releases before it read; both are read always.
local PLAIN_EXPIRATION = 'plain_expiration_ms'
local RID_EXPIRY = '@'
