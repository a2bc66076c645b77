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

# ferrum-test/node-base — Node from this machine's files, the base for building the Ferrum image.
bash "$(dirname "$0")/build-node-base-image.sh" ferrum-test/node-base
