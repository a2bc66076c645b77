#!/usr/bin/env bash
# `npm test`'s first step: the type check and the lint (eslint, prettier), side by side (each
# keeps one core busy for a minute or so); fails when either does, after both have finished.
set -u
cd "$(dirname "$0")/.."
npm run --silent typecheck &
typecheck=$!
npm run --silent lint &
lint=$!
status=0
wait "$typecheck" || status=$?
wait "$lint" || { lint_status=$?; [ "$status" = 0 ] && status=$lint_status; }
exit "$status"
