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

# ferrum-test/node-base — Node from this machine's files, the base for building the Ferrum image.
bash "$(dirname "$0")/build-node-base-image.sh" ferrum-test/node-base
