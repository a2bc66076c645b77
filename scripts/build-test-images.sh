#!/usr/bin/env bash
# Builds the images the tests run, from local files only (there is no registry):
#   ferrum-test/busybox — a rootfs with busybox-static and its applets.
set -euo pipefail

image_exists() { docker image inspect "$1" >/dev/null 2>&1; }

if ! image_exists ferrum-test/busybox; then
  busybox_bin="$(command -v busybox || echo /bin/busybox)"
  root="$(mktemp -d)"
  trap 'rm -rf "$root"' EXIT
  mkdir -p "$root/bin" "$root/tmp" "$root/etc" "$root/task"
  cp "$busybox_bin" "$root/bin/busybox"
  for applet in $("$root/bin/busybox" --list); do
    [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
  done
  echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
  echo "nobody:x:65534:65534:nobody:/:/bin/sh" >> "$root/etc/passwd"
  tar -C "$root" -c . | docker import -c 'ENV PATH=/bin' -c 'CMD ["/bin/sh"]' - ferrum-test/busybox >/dev/null
  echo "built ferrum-test/busybox" >&2
fi

# ferrum-test/task-echo — a worker image that uses its own command: prints what a task gets
# (payload, config, the task variables, its arguments) and exits with the code in the payload
# line "exit=<n>" if there is one.
if ! image_exists ferrum-test/task-echo; then
  context="$(mktemp -d)"
  cat > "$context/task.sh" <<'SCRIPT'
#!/bin/sh
echo "payload: $(cat "$PAYLOAD_FILE")"
echo "config: $(cat "$CONFIG_FILE")"
echo "task: $TASK_ID $PROJECT_ID $CODE_NAME $TASK_DIR"
echo "args: $*"
echo "to stderr" >&2
code="$(sed -n 's/^exit=//p' "$PAYLOAD_FILE")"
exit "${code:-0}"
SCRIPT
  chmod 755 "$context/task.sh"
  printf 'FROM ferrum-test/busybox\nCOPY task.sh /bin/task.sh\nCMD ["/bin/task.sh"]\n' > "$context/Dockerfile"
  docker build --network none -q -t ferrum-test/task-echo "$context" >/dev/null
  rm -rf "$context"
  echo "built ferrum-test/task-echo" >&2
fi

# ferrum-test/fn-echo — a `default`-format function: prints its request (stdin) and environment,
# writes a line to stderr; a body "sleep=<s>" sleeps first, "exit=<n>" fails with that status.
if ! image_exists ferrum-test/fn-echo; then
  context="$(mktemp -d)"
  cat > "$context/fn.sh" <<'SCRIPT'
#!/bin/sh
body="$(cat)"
echo "log of $CALL_ID" >&2
case "$body" in
  sleep=*) sleep "${body#sleep=}" ;;
  exit=*) echo "failing on purpose" >&2; exit "${body#exit=}" ;;
esac
echo "body=$body"
echo "method=$METHOD fn_method=$FN_METHOD"
echo "url=$REQUEST_URL"
echo "app=$APP_NAME route=$ROUTE call=$CALL_ID fn_app=$FN_APP_NAME"
echo "header=$HEADER_X_TEST fn_header=$FN_HEADER_X_TEST"
echo "config=$SHARED/$APP_ONLY/$ROUTE_ONLY fn_config=$FN_SHARED"
echo "memory=$FN_MEMORY format=$FN_FORMAT"
SCRIPT
  chmod 755 "$context/fn.sh"
  printf 'FROM ferrum-test/busybox\nCOPY fn.sh /bin/fn.sh\nCMD ["/bin/fn.sh"]\n' > "$context/Dockerfile"
  docker build --network none -q -t ferrum-test/fn-echo "$context" >/dev/null
  rm -rf "$context"
  echo "built ferrum-test/fn-echo" >&2
fi

# ferrum-test/node-base — Node from this machine's files, the base for building the Ferrum image.
bash "$(dirname "$0")/build-node-base-image.sh" ferrum-test/node-base

# ferrum-test/fn-alloc — a `default`-format Node function that fills a buffer of as many MiB as
# its request body says, to check the route's memory limit.
if ! image_exists ferrum-test/fn-alloc; then
  context="$(mktemp -d)"
  cat > "$context/alloc.js" <<'SCRIPT'
let input = '';
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const mib = Number(input) || 0;
  const buffer = Buffer.alloc(mib * 1024 * 1024, 1);
  process.stdout.write(`allocated ${mib} MiB (${buffer[buffer.length - 1] ?? 0})\n`);
});
SCRIPT
  printf 'FROM ferrum-test/node-base\nCOPY alloc.js /fn/alloc.js\nCMD ["node", "/fn/alloc.js"]\n' > "$context/Dockerfile"
  docker build --network none -q -t ferrum-test/fn-alloc "$context" >/dev/null
  rm -rf "$context"
  echo "built ferrum-test/fn-alloc" >&2
fi
