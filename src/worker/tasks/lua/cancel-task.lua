#!lua flags=allow-oom
--@include set-task-status.lua
-- A cancel: set-task-status.lua as it is, but run on a full Redis too (allow-oom), so that tasks
-- can be stopped and their space given back. A cancel never attaches a retry (the one part of a
-- status change that adds a record); it moves the task between status indexes and sets its
-- message.
