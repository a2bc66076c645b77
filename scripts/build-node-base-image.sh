#!/usr/bin/env bash
# Builds ferrum-test/node-base: a minimal Node image made from this machine's own files, for
# building and testing the Ferrum image where no image registry is reachable. It holds the
# host's `node` binary and the shared libraries `ldd` lists, npm, CA certificates and
# busybox-static for a shell. Laid out like the official node image (/usr/local/bin/node,
# user `node` = 1000), so the Dockerfile works the same on both.
# Rebuilt only when missing or when the host's Node version changed.
set -euo pipefail

image="${1:-ferrum-test/node-base}"
node_bin="$(readlink -f "$(command -v node)")"
node_version="$("$node_bin" --version)"

current="$(docker image inspect -f '{{ index .Config.Labels "node.version" }}' "$image" 2>/dev/null || true)"
if [ "$current" = "$node_version" ]; then exit 0; fi

busybox_bin="$(command -v busybox || echo /bin/busybox)"
npm_dir="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/usr/local/bin" "$root/usr/local/lib/node_modules" "$root/bin" "$root/usr/bin" \
  "$root/etc/ssl/certs" "$root/root" "$root/home/node" "$root/tmp"
chmod 1777 "$root/tmp"

cp "$node_bin" "$root/usr/local/bin/node"
# Every shared library node links, at the same path (the loader included).
for lib in $(ldd "$node_bin" | grep -oE '/[^ ]+'); do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done

cp -r "$npm_dir" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
cp -L /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"

cp "$busybox_bin" "$root/bin/busybox"
for applet in $("$root/bin/busybox" --list); do
  [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
ln -s /bin/env "$root/usr/bin/env"

cat > "$root/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/bin/sh
node:x:1000:1000:node:/home/node:/bin/sh
nobody:x:65534:65534:nobody:/:/bin/sh
PASSWD
printf 'root:x:0:\nnode:x:1000:\nnogroup:x:65534:\n' > "$root/etc/group"
echo 'hosts: files dns' > "$root/etc/nsswitch.conf"
chown -R 1000:1000 "$root/home/node"

tar -C "$root" -c . | docker import \
  -c 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
  -c 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  -c "LABEL node.version=$node_version" \
  -c 'CMD ["node"]' \
  - "$image" >/dev/null
echo "built $image (node $node_version)" >&2
