#!/usr/bin/env bash
# Runs every benchmark (the `bench:*` scripts of package.json) at its smoke size: each must
# complete and report its figures. CI runs this after the tests; see scripts/bench.mjs.
set -euo pipefail
cd "$(dirname "$0")/.."
exec node scripts/bench.mjs --smoke "$@"
