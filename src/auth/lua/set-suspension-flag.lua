#!lua flags=allow-oom
--@keys flag
-- Sets a suspension flag ('1': a project's in a service, or an app's), on a full Redis too
-- (allow-oom): a key of fixed size per service and app of the project, which stops its work, so
-- that a tenant filling Redis can be suspended and deleted.
redis.call('SET', KEYS[1], '1')
return 1
