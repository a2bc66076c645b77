#!/usr/bin/env bash
# Runs every vitest lane (see vitest.config.ts) as three vitest runs side by side, once this
# checkout is compiled for the tests that run Ferrum as a process (test/helpers/built-checkout.ts).
# The docker and topology runs mostly wait (on containers, Redis servers, child processes): with
# the light run beside them the whole suite used about one core of two on average (CPU 698 s in
# 762 s), against 300 s of light lane then ~580 s of the other two when they followed each other.
# - light: unit and redis, two files at a time (no lane is isolated: each worker imports the code
#   once for all its files; each HTTP-level file has its own server and Redis, the domain tests
#   share one Redis per worker). It would keep both cores busy, so it runs at a lower priority
#   (nice) and takes the CPU the other two leave while they wait;
# - docker: the docker lane without its whole-process files, one file at a time, once the Ferrum
#   image of this checkout is built (test/helpers/image.ts; its Dockerfile's tsc build takes a
#   minute or two), so the docker files that build it (image, worker-autoscaler, functions-runner-
#   image) find every layer cached;
# - topologies: cluster with sentinel, one file at a time, then (once the previous releases of
#   test/upgrade/releases.json are built from git history into .releases/, in the background
#   meanwhile) upgrade with the docker lane's whole-process files (FERRUM_DOCKER_PART in
#   vitest.config.ts), so that it takes about as long as the docker run.
# Docker files start containers and their timing must not starve on 2 cores, so no two of the
# docker lane's files run together (two at a time failed under a benchmark's load); a cluster or
# sentinel file mostly waits on its own Redis servers, so it runs beside one (every file's Redis,
# ports and containers are its own).
# Every run happens even when an earlier one fails; the exit status is the first failure's.
set -u
cd "$(dirname "$0")/.."
status=0
npx tsx -e "import('./test/helpers/image.ts').then((image) => image.buildFerrumImage())" >.ci/build-image.log 2>&1 &
image=$!
npx tsx -e "import('./test/helpers/built-checkout.ts').then((built) => built.builtCheckout())" || status=$?
nice -n 10 npx vitest run --project unit --project redis --maxWorkers=2 --outputFile.json=.ci/results-light.json --passWithNoTests "$@" &
light_run=$!
(
  bash scripts/build-release.sh --all >.ci/build-release.log 2>&1 &
  releases=$!
  topologies=0
  npx vitest run --project cluster --project sentinel --maxWorkers=1 --outputFile.json=.ci/results-topologies.json --passWithNoTests "$@" || topologies=$?
  wait "$releases" || { built=$?; cat .ci/build-release.log >&2; [ "$topologies" = 0 ] && topologies=$built; }
  FERRUM_DOCKER_PART=processes npx vitest run --project upgrade --project docker --maxWorkers=1 --outputFile.json=.ci/results-processes.json --passWithNoTests "$@" || processes=$?
  [ "$topologies" = 0 ] && topologies=${processes:-0}
  exit "$topologies"
) &
topologies_run=$!
wait "$image" || echo "the Ferrum image did not build (see .ci/build-image.log); the docker files that need it build it again" >&2
FERRUM_DOCKER_PART=rest npx vitest run --project docker --maxWorkers=1 --outputFile.json=.ci/results-docker.json --passWithNoTests "$@" || status=$?
for run in "$light_run" "$topologies_run"; do
  wait "$run" || { lane=$?; [ "$status" = 0 ] && status=$lane; }
done
exit "$status"
