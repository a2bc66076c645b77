#!/usr/bin/env bash
# Makes sure the machine has what Ferrum needs, installing it where it can (root with apt).
#   services: redis-server and a running Docker engine (npm start)
#   fast:     redis-server, Python, Ruby, Java, Go and PHP (the unit and redis test lanes, npm run test:fast)
#   test:     services, plus Python, Ruby, Java, Go and PHP (test/redis/compat; python3 and ruby also make the
#             stacks' test images), busybox-static, the locally built test images, wrk, RabbitMQ,
#             Debian's Chromium (the dashboard's browser tests), nginx (the rolling-restart test)
#             and Debian's Prometheus (promtool and the server, for the alert rules' test) (npm test)
#   rabbitmq: Debian's RabbitMQ server, the reference of bench/mq-rabbitmq.ts
# Idempotent and quick when everything is already there.
set -euo pipefail
mode="${1:-services}"

is_root() { [ "$(id -u)" = "0" ]; }
have() { command -v "$1" >/dev/null 2>&1; }
apt_updated=0

apt_install() {
  if ! is_root || ! have apt-get; then
    echo "ferrum setup: missing $*; install it with: sudo apt-get install -y $*" >&2
    return 1
  fi
  if [ "$apt_updated" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    apt_updated=1
  fi
  echo "ferrum setup: installing $*" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

ensure_redis() {
  have redis-server || apt_install redis-server || return 1
}

# Bounded: an engine that stopped answering (dockerd 20.10 can deadlock in libnetwork when many
# containers start and exit at once) counts as not running rather than hanging the setup.
docker_running() { timeout 20 docker info >/dev/null 2>&1; }

ensure_docker() {
  if docker_running; then return 0; fi
  have dockerd || apt_install docker.io || return 1
  if ! is_root; then
    echo "ferrum setup: the Docker engine is not running; start it with: sudo dockerd --bridge=none --iptables=false --ip-masq=false &" >&2
    return 1
  fi
  if pgrep -x dockerd >/dev/null; then
    echo "ferrum setup: dockerd runs but does not answer; restarting it" >&2
    pkill -9 -x dockerd
    pkill -9 -f containerd-shim || true
    pkill -9 -x containerd || true
    sleep 1
  fi
  echo "ferrum setup: starting dockerd" >&2
  nohup setsid dockerd --bridge=none --iptables=false --ip-masq=false >/var/log/ferrum-dockerd.log 2>&1 < /dev/null &
  for _ in $(seq 1 60); do
    docker_running && return 0
    sleep 0.5
  done
  echo "ferrum setup: dockerd did not start; see /var/log/ferrum-dockerd.log" >&2
  return 1
}

ensure_test_images() {
  have busybox || [ -x /bin/busybox ] || apt_install busybox-static || return 1
  # The interpreters the python and ruby stack images are made of.
  [ -x /usr/bin/python3 ] || apt_install python3 || return 1
  [ -x /usr/bin/ruby ] || apt_install ruby || return 1
  bash "$(dirname "$0")/build-test-images.sh"
}

# wrk: the C load generator of the benchmarks (CI runs every bench at its smoke size).
ensure_wrk() {
  have wrk || apt_install wrk || return 1
}

ensure_browser() {
  [ -x /usr/bin/chromium ] || apt_install chromium || return 1
}

# Python (with requests), Ruby, Java, Go (net/http) and PHP (with curl): test/redis/compat sends
# requests exactly as the official clients of those languages do.
ensure_client_languages() {
  local missing=()
  [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import requests' 2>/dev/null || missing+=(python3 python3-requests)
  have ruby || missing+=(ruby)
  have javac || missing+=(default-jdk-headless)
  have go || missing+=(golang-go)
  { have php && php -r 'exit(function_exists("curl_init") ? 0 : 1);' 2>/dev/null; } || missing+=(php-cli php-curl)
  [ "${#missing[@]}" = 0 ] || apt_install "${missing[@]}"
}

# nginx: the proxy of test/docker/rolling-restart.test.ts, run there as a child process with its own
# config (the package's system service is not used).
ensure_nginx() {
  [ -x /usr/sbin/nginx ] || apt_install nginx || return 1
}

# prometheus and promtool: test/docker/metrics/metrics-alerts.test.ts runs the chart's alert rules on them.
ensure_prometheus() {
  { have prometheus && have promtool; } || apt_install prometheus || return 1
}

ensure_rabbitmq() {
  [ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || apt_install rabbitmq-server || return 1
}

case "$mode" in
  services)
    ensure_redis || true   # the server itself explains how to install Redis when it is missing
    ensure_docker || echo "ferrum setup: continuing without Docker; tasks and functions need it" >&2
    ;;
  fast)   # the unit and redis test lanes (npm run test:fast): Redis and the client languages
    ensure_redis
    ensure_client_languages
    ;;
  test)
    ensure_redis
    ensure_docker
    ensure_test_images
    ensure_browser
    ensure_wrk
    ensure_client_languages
    ensure_nginx
    ensure_prometheus
    # bench:mq-rabbitmq's reference: installed here so the smoke benches after the tests
    # spend their budget measuring, not installing.
    ensure_rabbitmq
    ;;
  rabbitmq)
    ensure_rabbitmq
    ;;
  *)
    echo "usage: $0 services|fast|test|rabbitmq" >&2
    exit 2
    ;;
esac
