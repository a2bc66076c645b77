#!/usr/bin/env bash
# Runs every vitest lane (see vitest.config.ts): first this checkout is compiled once for the tests
# that run Ferrum as a process (test/helpers/built-checkout.ts), and in the background the previous
# releases (test/upgrade/releases.json) are built from git history into .releases/ and the Ferrum
# image from this checkout's Dockerfile (test/helpers/image.ts); unit and redis run two files at a
# time (no lane is isolated: each worker imports the code once for all its files; each HTTP-level
# file has its own server and Redis, the domain tests share one Redis per worker); then two runs
# side by side, each one file at a time: the docker lane without
# its whole-process files, and cluster with sentinel and upgrade followed by the docker lane's
# whole-process files (FERRUM_DOCKER_PART in vitest.config.ts), so that both runs take about as
# long. Docker files start containers and their timing must not starve on 2 cores, so no two of
# them run together; a cluster or sentinel file mostly waits on its own Redis servers, so it runs
# beside one (every file's Redis, ports and containers are its own).
# Every run happens even when an earlier one fails; the exit status is the first failure's.
set -u
cd "$(dirname "$0")/.."
status=0
bash scripts/build-release.sh --all >.ci/build-release.log 2>&1 &
releases=$!
# The Ferrum image of this checkout (its Dockerfile's tsc build takes a minute or two), ready
# before the docker lane: the docker files that build it (image, worker-autoscaler, functions-
# runner-image) then find every layer cached. A failure here shows again in those files.
npx tsx -e "import('./test/helpers/image.ts').then((image) => image.buildFerrumImage())" >.ci/build-image.log 2>&1 &
image=$!
npx tsx -e "import('./test/helpers/built-checkout.ts').then((built) => built.builtCheckout())" || status=$?
npx vitest run --project unit --project redis --maxWorkers=2 --outputFile.json=.ci/results-light.json --passWithNoTests "$@" || status=$?
wait "$releases" || { built=$?; cat .ci/build-release.log >&2; [ "$status" = 0 ] && status=$built; }
wait "$image" || echo "the Ferrum image did not build (see .ci/build-image.log); the docker files that need it build it again" >&2
FERRUM_DOCKER_PART=rest npx vitest run --project docker --maxWorkers=1 --outputFile.json=.ci/results-docker.json --passWithNoTests "$@" &
docker_run=$!
(
  topologies=0
  npx vitest run --project cluster --project sentinel --project upgrade --maxWorkers=1 --outputFile.json=.ci/results-topologies.json --passWithNoTests "$@" || topologies=$?
  FERRUM_DOCKER_PART=processes npx vitest run --project docker --maxWorkers=1 --outputFile.json=.ci/results-docker-processes.json --passWithNoTests "$@" || processes=$?
  [ "$topologies" = 0 ] && topologies=${processes:-0}
  exit "$topologies"
) &
topologies_run=$!
for run in "$docker_run" "$topologies_run"; do
  wait "$run" || { heavy=$?; [ "$status" = 0 ] && status=$heavy; }
done
exit "$status"
