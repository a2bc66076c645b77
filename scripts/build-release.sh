#!/usr/bin/env bash
# Builds a previous release of Ferrum from this repository's own git history, for the upgrade
# tests (test/upgrade): `scripts/build-release.sh <commit>` extracts the commit's tree into
# .releases/<commit>/ (git-ignored), installs its locked dependencies and builds it; it prints the
# folder. `scripts/build-release.sh --all` builds every release test/upgrade/releases.json lists.
# Idempotent: a folder whose build finished (the .built marker) is reused at once. A release
# whose locked packages this checkout's lock pins too, each at the same version (a release that
# only lacks packages added since), shares this checkout's node_modules instead of installing
# its own copy: about a minute saved per release.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

build_one() {
  local commit
  commit="$(git rev-parse --verify --quiet "$1^{commit}")" || {
    echo "build-release: $1 is not a commit of this repository (a shallow clone? fetch its history)" >&2
    return 1
  }
  local dir="$root/.releases/$commit"
  if [ -f "$dir/.built" ]; then
    echo "$dir"
    return 0
  fi
  local started=$SECONDS
  rm -rf "$dir"
  mkdir -p "$dir"
  git archive "$commit" | tar -x -C "$dir"
  if [ -d "$root/node_modules" ] && node scripts/lock-covers.mjs "$dir/package-lock.json"; then
    ln -s "$root/node_modules" "$dir/node_modules"
  else
    (cd "$dir" && npm ci --no-fund --no-audit --loglevel=error --prefer-offline >&2)
  fi
  (cd "$dir" && npm run build --silent >&2)
  touch "$dir/.built"
  echo "build-release: ${commit:0:7} built in $((SECONDS - started)) s" >&2
  echo "$dir"
}

if [ "${1:-}" = "--all" ]; then
  for commit in $(node -e 'for (const r of require("./test/upgrade/releases.json").releases) console.log(r.commit)'); do
    build_one "$commit" >/dev/null
  done
elif [ $# = 1 ]; then
  build_one "$1"
else
  echo "usage: $0 <commit> | --all" >&2
  exit 2
fi
