#!/usr/bin/env bash
# Runs every vitest lane (see vitest.config.ts): unit and redis two files at a time (each HTTP-level
# file has its own server and Redis; the domain tests share one Redis per worker), then docker,
# cluster and sentinel one file at a time (their files start containers or several Redis servers,
# and their timing must not starve on 2 cores).
# Both runs happen even when the first fails; the exit status is the first failure's.
set -u
cd "$(dirname "$0")/.."
status=0
npx vitest run --project unit --project redis --maxWorkers=2 --outputFile.json=.ci/results-light.json --passWithNoTests "$@" || status=$?
npx vitest run --project docker --project cluster --project sentinel --outputFile.json=.ci/results-heavy.json --passWithNoTests "$@" ||
  { heavy=$?; [ "$status" = 0 ] && status=$heavy; }
exit "$status"
