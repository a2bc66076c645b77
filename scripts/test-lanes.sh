#!/usr/bin/env bash
# Runs every vitest lane (see vitest.config.ts): unit and redis two files at a time (each HTTP-level
# file has its own server and Redis; the domain tests share one Redis per worker), then two runs side
# by side, each one file at a time: docker, and cluster with sentinel and upgrade (whose previous
# releases, test/upgrade/releases.json, are built first from git history into .releases/). Docker files start containers
# and their timing must not starve on 2 cores, so no two of them run together; a cluster or
# sentinel file mostly waits on its own Redis servers, so it runs beside one (every file's Redis,
# ports and containers are its own).
# Every run happens even when an earlier one fails; the exit status is the first failure's.
set -u
cd "$(dirname "$0")/.."
status=0
npx vitest run --project unit --project redis --maxWorkers=2 --outputFile.json=.ci/results-light.json --passWithNoTests "$@" || status=$?
bash scripts/build-release.sh --all || status=$?
npx vitest run --project docker --maxWorkers=1 --outputFile.json=.ci/results-docker.json --passWithNoTests "$@" &
docker_run=$!
npx vitest run --project cluster --project sentinel --project upgrade --maxWorkers=1 --outputFile.json=.ci/results-topologies.json --passWithNoTests "$@" &
topologies_run=$!
for run in "$docker_run" "$topologies_run"; do
  wait "$run" || { heavy=$?; [ "$status" = 0 ] && status=$heavy; }
done
exit "$status"
