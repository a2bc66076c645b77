import os from 'node:os';
import { type Env, intFrom, listFrom, nonEmpty } from './env.js';
import { choiceOf, defineSettings, intOf, textOf } from './setting.js';

export const HTTP_SETTINGS = defineSettings({
  PORT: {
    fallback: 8080,
    meaning: 'HTTP port of the controller',
  },
  HOST: {
    fallback: '127.0.0.1',
    meaning: 'address the controller listens on (`0.0.0.0` for all)',
  },
  FERRUM_WORKERS: {
    shown: 'one per available core (`os.availableParallelism()`)',
    meaning:
      "`ferrum start` and `ferrum controller`: HTTP worker processes sharing the port (`node:cluster`); `1` runs everything in one process. The primary process keeps the managed `redis-server`, the runner (`ferrum start`) and `iron.json`/`server.json`, restarts a worker that dies (after 0.5 s, doubling while they keep dying, up to 30 s) and on SIGTERM (one while they start too) drains the workers that serve together and stops those still starting; the background loops run once whatever the count (leader leases); `/metrics` answers every process's figures aggregated. The Helm chart sets `1` (pods scale by replicas). See [Every core](operations.md#every-core)",
  },
  FERRUM_SHUTDOWN_TIMEOUT_MS: {
    shown:
      'controller: `FERRUM_HTTP_DRAIN_MS` + 15000 (20 s); runner: `FERRUM_RUNNER_DRAIN_MS` + 20000; `ferrum start`: the larger of the two',
    meaning:
      "SIGTERM/SIGINT: the process is gone within this long whatever state Redis is in (steps that need an unreachable Redis are given up after 2 s, logged once). The controller's default fits Kubernetes' default 30 s grace period",
  },
  FERRUM_HTTP_DRAIN_MS: {
    fallback: 5000,
    meaning:
      'SIGTERM/SIGINT on a controller (and `ferrum start`): for this long `/ready` answers 503 while the listener stays open and every request is still served, each answer with `Connection: close`, so load balancers take the controller out before it stops accepting connections; then MQ long-polls (reserve with `wait`) answer at once with what they have, the other requests in flight get up to 10 s to finish, and the process exits. A `ferrum start` at a terminal (stdin and stdout a TTY) does not drain unless this is set. A second signal stops at once. See [Rolling restarts](operations.md#rolling-restarts)',
  },
  FERRUM_BODY_LIMIT: {
    fallback: 64 * 1024,
    meaning:
      "largest body of an ordinary request, bytes (413 above; the spec's 64 KB). Own limits: code upload (`FERRUM_WORKER_MAX_CODE_BYTES` + 1 MiB), function calls (`FERRUM_FUNCTIONS_BODY_LIMIT`), message posts (`FERRUM_MQ_POST_BODY_LIMIT`), cache puts (`FERRUM_CACHE_MAX_VALUE_BYTES` + 64 KiB), task/schedule queueing (80 KiB: one full 64 KB payload), v1 queue update (128 KiB: a 64 KB subscriber list)",
  },
  FERRUM_LARGE_BODY_BYTES: {
    fallback: 256 * 1024,
    meaning:
      "a request body at least this large (by `Content-Length`, or by the bytes read so far of a chunked one) on a project's route, once the request is authorized, is a large one: see the next entries",
  },
  FERRUM_LARGE_BODIES_PER_PROJECT: {
    fallback: 2,
    meaning:
      "most large bodies of one project a controller reads and handles at once; more wait their turn, unread (TCP holds the sender back), so one tenant's flood of megabyte values or batches cannot hold the event loop every tenant shares; `0`: no bound",
  },
  FERRUM_LARGE_BODY_BYTES_PER_SECOND: {
    fallback: 32 * 1024 * 1024,
    meaning:
      "most bytes per second of one project's large bodies a controller reads (32 MiB/s), booked as they are read, and of the push deliveries its messages cause (each delivery, HTTP, `ironmq:///` or `ironworker:///`, books its body's bytes on the same rate); a quiet project's first quarter second of bytes passes at once, a faster sender's bytes then wait their turn (a 64 MB code upload is spread over about 2 s); `0`: no bound",
  },
  LOG_LEVEL: {
    fallback: 'info',
    meaning: 'pino log level',
  },
  FERRUM_PUBLIC_SCHEME: {
    fallback: 'http',
    meaning: 'protocol written to `iron.json` (as both `protocol` and `scheme`)',
  },
  FERRUM_TRUST_PROXY: {
    shown: '(empty: off)',
    meaning:
      'whose `X-Forwarded-For` names the client (sign-in counts per client address, logs): `true` (any peer), or addresses and CIDRs of the load balancer or ingress, comma-separated; off, the peer is the client (behind a proxy every client then shares its address). The chart sets it when its ingress is enabled (`ingress.trustedProxies`)',
  },
  FERRUM_LOG_REQUESTS: {
    shown: 'unset',
    meaning: '`1` logs every request and response (costs throughput)',
  },
  FERRUM_PUBLIC_HOST: {
    shown: '`HOST` (loopback when `HOST` is a wildcard)',
    meaning: 'host written to `iron.json`',
  },
  FERRUM_OUTBOUND_ALLOW: {
    shown: 'empty',
    meaning:
      "comma-separated CIDRs, addresses and host names the server may connect to for a tenant (push subscribers), and runners may pull tenants' images from (registry hosts), although they are internal; by default loopback, link-local (169.254.169.254 included), private, unique-local and other internal addresses are refused, checked on the resolved address at connect time",
  },
  FERRUM_LOG_FORMAT: {
    fallback: 'auto',
    meaning:
      '`auto`: pretty, coloured lines (pino-pretty) when stdout is a terminal, JSON lines otherwise; `json` or `pretty` forces one (`ferrum start` and `ferrum controller`)',
  },
});

/** The HTTP side of a controller: where it listens, what it accepts, how it logs and drains. */
export interface HttpSettings {
  port: number;
  host: string;
  /**
   * How long SIGTERM/SIGINT may take before the process exits anyway, in ms; undefined: the
   * role's own default (see shutdownTimeoutMs()).
   */
  shutdownTimeoutMs: number | undefined;
  /**
   * On SIGTERM, how long a controller keeps serving with /ready answering 503 (so load
   * balancers take it out) before it stops accepting connections, in ms.
   */
  httpDrainMs: number;
  /** Whether FERRUM_HTTP_DRAIN_MS was given (an interactive `ferrum start` drains only then). */
  httpDrainGiven: boolean;
  /**
   * HTTP worker processes of `ferrum start` and `ferrum controller` (node:cluster, one port);
   * 1 runs everything in one process; FERRUM_WORKERS unset or 0: one per available core.
   */
  workers: number;
  bodyLimitBytes: number;
  /** Bodies of at least `thresholdBytes` are read `perProject` at a time per project (0: no bound). */
  largeBodies: { thresholdBytes: number; perProject: number; bytesPerSecond: number };
  logLevel: string;
  /** FERRUM_LOG_FORMAT: `auto` is pretty lines on a terminal, JSON otherwise. */
  logFormat: LogFormat;
  /** Log every request and response (pino, info level); off by default because it costs throughput. */
  logRequests: boolean;
  publicScheme: string;
  publicHost: string | undefined;
  /**
   * Where the server may connect for a tenant (push subscribers, alerts, webhooks): loopback,
   * link-local, private and unique-local addresses are refused unless these CIDRs or host
   * names allow them.
   */
  outboundAllow: string[];
  /**
   * Which peers' `X-Forwarded-For` names the client (fastify's `trustProxy`): false (the
   * default: the peer is the client), true (any peer), or a list of addresses and CIDRs (the
   * load balancer's or ingress's).
   */
  trustProxy: boolean | string[];
}

/** FERRUM_TRUST_PROXY: empty or `false` (off), `true`, or addresses and CIDRs. */
function trustProxyFrom(env: Env): boolean | string[] {
  const raw = (env.FERRUM_TRUST_PROXY ?? '').trim();
  if (raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  return listFrom(raw);
}

export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export function readHttpSettings(env: Env): HttpSettings {
  return {
    port: intOf(env, HTTP_SETTINGS.PORT),
    host: textOf(env, HTTP_SETTINGS.HOST),
    shutdownTimeoutMs: env.FERRUM_SHUTDOWN_TIMEOUT_MS
      ? Math.max(1000, intFrom(env, 'FERRUM_SHUTDOWN_TIMEOUT_MS', 0))
      : undefined,
    httpDrainMs: Math.max(0, intOf(env, HTTP_SETTINGS.FERRUM_HTTP_DRAIN_MS)),
    httpDrainGiven: Boolean(env.FERRUM_HTTP_DRAIN_MS),
    workers: intFrom(env, HTTP_SETTINGS.FERRUM_WORKERS.name, 0) || os.availableParallelism(),
    bodyLimitBytes: intOf(env, HTTP_SETTINGS.FERRUM_BODY_LIMIT),
    largeBodies: {
      thresholdBytes: Math.max(1, intOf(env, HTTP_SETTINGS.FERRUM_LARGE_BODY_BYTES)),
      perProject: Math.max(0, intOf(env, HTTP_SETTINGS.FERRUM_LARGE_BODIES_PER_PROJECT)),
      bytesPerSecond: Math.max(0, intOf(env, HTTP_SETTINGS.FERRUM_LARGE_BODY_BYTES_PER_SECOND)),
    },
    logLevel: textOf(env, HTTP_SETTINGS.LOG_LEVEL),
    logFormat: choiceOf(env, HTTP_SETTINGS.FERRUM_LOG_FORMAT, LOG_FORMATS),
    logRequests: env.FERRUM_LOG_REQUESTS === '1',
    publicScheme: textOf(env, HTTP_SETTINGS.FERRUM_PUBLIC_SCHEME),
    publicHost: nonEmpty(env.FERRUM_PUBLIC_HOST),
    outboundAllow: listFrom(env.FERRUM_OUTBOUND_ALLOW),
    trustProxy: trustProxyFrom(env),
  };
}
