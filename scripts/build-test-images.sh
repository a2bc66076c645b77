#!/usr/bin/env bash
# Builds the images the tests run, from local files only (there is no registry):
#   ferrum-test/busybox — a rootfs with busybox-static and its applets.
#   ferrum-test/python, ferrum-test/ruby — stacks for zip packages naming those runtimes.
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

# ferrum-test/python and ferrum-test/ruby — stack images for zip packages of those runtimes, made
# from this machine's own interpreter (Debian's /usr/bin/python3, /usr/bin/ruby): the program
# under its plain name (python, ruby), its library folders, every shared library they link, and
# busybox for /bin/sh. Rebuilt only when missing or when the host's version changed.
host_runtime_image() {
  local image="$1" name="$2" program="$3"
  shift 3
  local real version current root dir lib
  real="$(readlink -f "$program")"
  version="$("$real" --version 2>&1 | head -1)"
  current="$(docker image inspect -f '{{ index .Config.Labels "runtime.version" }}' "$image" 2>/dev/null || true)"
  [ "$current" = "$version" ] && return 0
  root="$(mktemp -d)"
  mkdir -p "$root/usr/bin" "$root/bin" "$root/tmp" "$root/etc"
  chmod 1777 "$root/tmp"
  cp "$real" "$root/usr/bin/$name"
  for dir in "$@"; do
    mkdir -p "$root$(dirname "$dir")"
    cp -a "$dir" "$root$dir"
  done
  # The loader and every library the program and its extension modules link, at the same paths.
  for lib in $( { ldd "$real"; find "$@" -name '*.so*' -type f -exec ldd {} \; 2>/dev/null; } \
    | grep -oE '/[^ ]+\.so[^ ]*' | sort -u); do
    [ -e "$lib" ] || continue
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
  cp "$(command -v busybox || echo /bin/busybox)" "$root/bin/busybox"
  for applet in $("$root/bin/busybox" --list); do
    [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
  done
  echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
  tar -C "$root" -c . | docker import -c 'ENV PATH=/usr/bin:/bin' -c "LABEL runtime.version=\"$version\"" \
    -c "CMD [\"$name\"]" - "$image" >/dev/null
  rm -rf "$root"
  echo "built $image ($version)" >&2
}

python_lib="$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')"
host_runtime_image ferrum-test/python python /usr/bin/python3 "$python_lib"
ruby_dirs="$(/usr/bin/ruby -e 'puts [RbConfig::CONFIG["rubylibdir"], RbConfig::CONFIG["archdir"]].uniq')"
# shellcheck disable=SC2086 # one folder per line
host_runtime_image ferrum-test/ruby ruby /usr/bin/ruby $ruby_dirs

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

# ferrum-test/fn-hot-http and ferrum-test/fn-hot-json — hot functions (Node) that serve calls one
# after another over stdin/stdout, in the `http` (HTTP/1.1 framing) or `json` (one JSON object per
# line) format. They answer with a JSON echo of the call (body, method, URL, the X-Echo header, the
# GREETING env var, the container's hostname and how many calls it has served) and obey request
# headers: X-Sleep-Ms (wait first), X-Status (status code), X-Header ("name: value" to set),
# X-Stderr (a line to stderr), X-Exit (exit with that code mid-call), X-Allocate-Mb (hold that much
# memory), X-Garbage (answer with bytes that break the framing), X-Chunked (http: chunked answer).
# Rebuilt when this program changes (its hash is a label of the images).
fn_program="$(cat <<'PROGRAM'
const format = process.argv[2];
const http = require('node:http');
const { Duplex } = require('node:stream');
const os = require('node:os');
let calls = 0;
let inflight = 0;
let stdinEnded = false;
// Without a caller left (stdin closed), the function exits once its calls are answered.
const exitWhenDone = () => { if (stdinEnded && inflight === 0) process.exit(0); };

async function handle(call, reply, raw) {
  calls++;
  inflight++;
  const header = (name) => call.headers[name];
  if (header('x-stderr')) process.stderr.write(header('x-stderr') + '\n');
  if (header('x-sleep-ms')) await new Promise((resolve) => setTimeout(resolve, Number(header('x-sleep-ms'))));
  if (header('x-exit')) process.exit(Number(header('x-exit')));
  if (header('x-allocate-mb')) globalThis.kept = Buffer.alloc(Number(header('x-allocate-mb')) * 1024 * 1024, 1);
  if (header('x-garbage')) return raw('this is not a valid response\n\n\n');
  const headers = { 'content-type': 'application/json' };
  if (header('x-header')) {
    const [name, ...value] = header('x-header').split(':');
    headers[name.trim().toLowerCase()] = value.join(':').trim();
  }
  const body = JSON.stringify({
    calls, hostname: os.hostname(), method: call.method, url: call.url, body: call.body,
    echo: header('x-echo') ?? null, greeting: process.env.GREETING ?? null,
    callId: call.callId, deadline: call.deadline,
  });
  reply(Number(header('x-status') ?? 200), headers, body, Boolean(header('x-chunked')));
  inflight--;
}

function serveHttp() {
  const server = http.createServer({ requireHostHeader: false }, (req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const call = { method: req.method, url: req.url, headers, body: Buffer.concat(chunks).toString(),
        callId: headers['fn-call-id'], deadline: headers['fn-deadline'] };
      handle(call, (status, headers, body, chunked) => {
        if (!chunked) headers['content-length'] = Buffer.byteLength(body);
        res.writeHead(status, headers);
        if (chunked) { res.write(body.slice(0, 5)); res.end(body.slice(5)); } else res.end(body);
      }, (text) => process.stdout.write(text));
    });
  });
  server.keepAliveTimeout = 0;
  server.httpAllowHalfOpen = true;
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  const socket = new Duplex({
    read() { process.stdin.resume(); },
    write(chunk, _encoding, done) { process.stdout.write(chunk, done); },
  });
  socket.setTimeout = () => socket;
  socket.setNoDelay = () => socket;
  socket.setKeepAlive = () => socket;
  process.stdin.on('data', (chunk) => { if (!socket.push(chunk)) process.stdin.pause(); });
  // The server ends its side once the requests it read are answered.
  process.stdin.on('end', () => socket.push(null));
  socket.on('finish', () => process.exit(0));
  server.emit('connection', socket);
}

function serveJson() {
  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (text) => {
    pending += text;
    let newline;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (!line.trim()) continue;
      const request = JSON.parse(line);
      const headers = Object.fromEntries(Object.entries(request.protocol.headers).map(([k, v]) => [k.toLowerCase(), v.join(', ')]));
      const call = { method: request.protocol.method, url: request.protocol.request_url, headers, body: request.body,
        callId: request.call_id, deadline: request.deadline };
      handle(call, (status, headers, body) => {
        const out = { body, content_type: headers['content-type'], protocol: { status_code: status,
          headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])) } };
        process.stdout.write(JSON.stringify(out) + '\n');
      }, (text) => process.stdout.write(text)).then(exitWhenDone);
    }
  });
  process.stdin.on('end', () => { stdinEnded = true; exitWhenDone(); });
}

if (format === 'http') serveHttp(); else serveJson();
PROGRAM
)"
fn_hash="$(printf '%s' "$fn_program" | sha256sum | cut -c1-16)"
for format in http json; do
  image="ferrum-test/fn-hot-$format"
  current="$(docker image inspect -f '{{ index .Config.Labels "fn.hash" }}' "$image" 2>/dev/null || true)"
  [ "$current" = "$fn_hash" ] && continue
  context="$(mktemp -d)"
  printf '%s\n' "$fn_program" > "$context/fn.js"
  printf 'FROM ferrum-test/node-base\nCOPY fn.js /fn.js\nLABEL fn.hash=%s\nCMD ["node", "/fn.js", "%s"]\n' "$fn_hash" "$format" > "$context/Dockerfile"
  docker build --network none -q -t "$image" "$context" >/dev/null
  rm -rf "$context"
  echo "built $image" >&2
done

# ferrum-test/fn-hot-stream — the reference `http-stream` function (Node, no FDK needed): it
# follows the socket contract as Fn's FDKs do — listens on a socket of its own in the folder of
# FN_LISTENER, makes it writable for the runner and links lsnr.sock to it once ready; answers
# POST /call with the same JSON echo as the hot images above (caller headers arrive as
# Fn-Http-H-<Name>; the answer's status and headers go back as Fn-Http-Status and
# Fn-Http-H-<Name>); writes the FN_LOGFRAME_NAME=<call id> frame line to stdout and stderr as
# each call starts. X-Raw answers with the request body as is; X-Stderr-After-Ms writes the
# X-Stderr line that long after the answer. It runs as an unprivileged user.
stream_program="$(cat <<'PROGRAM'
const http = require('node:http');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const listener = process.env.FN_LISTENER || '';
if (process.env.FN_FORMAT !== 'http-stream' || !listener.startsWith('unix:')) {
  console.error('FN_FORMAT=http-stream and FN_LISTENER=unix:<path> are required');
  process.exit(2);
}
const socketPath = listener.slice('unix:'.length);
const phony = path.join(path.dirname(socketPath), `phony-${process.pid}.sock`);
const frameName = process.env.FN_LOGFRAME_NAME;
const frameHeader = (process.env.FN_LOGFRAME_HDR || '').toLowerCase();
let calls = 0;

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    if (req.method !== 'POST' || req.url !== '/call') {
      res.writeHead(400, { 'content-type': 'text/plain' });
      return res.end('POST /call only');
    }
    if (frameName && frameHeader && req.headers[frameHeader]) {
      const frame = `\n${frameName}=${req.headers[frameHeader]}\n`;
      process.stdout.write(frame);
      process.stderr.write(frame);
    }
    calls++;
    const header = (name) => req.headers[`fn-http-h-${name}`];
    // X-Stderr-After-Ms: the line is written that long after the answer (stderr the engine relays late).
    const stderrLine = header('x-stderr') ? header('x-stderr') + '\n' : '';
    const stderrAfter = Number(header('x-stderr-after-ms') || 0);
    if (stderrLine && stderrAfter) res.on('finish', () => setTimeout(() => process.stderr.write(stderrLine), stderrAfter));
    else if (stderrLine) process.stderr.write(stderrLine);
    if (header('x-sleep-ms')) await new Promise((resolve) => setTimeout(resolve, Number(header('x-sleep-ms'))));
    if (header('x-exit')) process.exit(Number(header('x-exit')));
    if (header('x-allocate-mb')) globalThis.kept = Buffer.alloc(Number(header('x-allocate-mb')) * 1024 * 1024, 1);
    const body = Buffer.concat(chunks);
    const out = { 'Fn-Http-Status': String(header('x-status') ?? 200), 'Fn-Fdk-Version': 'ferrum-reference/1' };
    if (header('x-header')) {
      const [name, ...value] = header('x-header').split(':');
      out[`Fn-Http-H-${name.trim()}`] = value.join(':').trim();
    }
    if (header('x-raw')) {
      out['Content-Type'] = 'application/octet-stream';
      res.writeHead(200, out);
      return res.end(body);
    }
    out['Content-Type'] = 'application/json';
    res.writeHead(200, out);
    res.end(JSON.stringify({
      calls, hostname: os.hostname(), method: req.headers['fn-http-method'], url: req.headers['fn-http-request-url'],
      body: body.toString(), echo: header('x-echo') ?? null, greeting: process.env.GREETING ?? null,
      callId: req.headers['fn-call-id'], deadline: req.headers['fn-deadline'],
      env: { app: process.env.FN_APP_ID, fn: process.env.FN_FN_ID, memory: process.env.FN_MEMORY, type: process.env.FN_TYPE },
    }));
  });
});
server.keepAliveTimeout = 0;
server.requestTimeout = 0;
server.headersTimeout = 0;
try { fs.unlinkSync(phony); } catch {}
server.listen(phony, () => {
  fs.chmodSync(phony, 0o666);
  fs.symlinkSync(path.basename(phony), socketPath);
});
PROGRAM
)"
stream_hash="$(printf '%s' "$stream_program" | sha256sum | cut -c1-16)"
current="$(docker image inspect -f '{{ index .Config.Labels "fn.hash" }}' ferrum-test/fn-hot-stream 2>/dev/null || true)"
if [ "$current" != "$stream_hash" ]; then
  context="$(mktemp -d)"
  printf '%s\n' "$stream_program" > "$context/fn.js"
  printf 'FROM ferrum-test/node-base\nCOPY fn.js /fn.js\nLABEL fn.hash=%s\nUSER 65534:65534\nCMD ["node", "/fn.js"]\n' "$stream_hash" > "$context/Dockerfile"
  docker build --network none -q -t ferrum-test/fn-hot-stream "$context" >/dev/null
  rm -rf "$context"
  echo "built ferrum-test/fn-hot-stream" >&2
fi

# ferrum-test/fn-cold-echo — a `default`-format function: its answer is its request body (cat).
if ! image_exists ferrum-test/fn-cold-echo; then
  context="$(mktemp -d)"
  printf 'FROM ferrum-test/busybox\nCMD ["/bin/cat"]\n' > "$context/Dockerfile"
  docker build --network none -q -t ferrum-test/fn-cold-echo "$context" >/dev/null
  rm -rf "$context"
  echo "built ferrum-test/fn-cold-echo" >&2
fi

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
