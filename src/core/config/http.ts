import os from 'node:os';
import { type Env, intFrom, listFrom, nonEmpty, oneOf } from './env.js';

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
    port: intFrom(env, 'PORT', 8080),
    host: env.HOST || '127.0.0.1',
    shutdownTimeoutMs: env.FERRUM_SHUTDOWN_TIMEOUT_MS
      ? Math.max(1000, intFrom(env, 'FERRUM_SHUTDOWN_TIMEOUT_MS', 0))
      : undefined,
    httpDrainMs: Math.max(0, intFrom(env, 'FERRUM_HTTP_DRAIN_MS', 5000)),
    httpDrainGiven: Boolean(env.FERRUM_HTTP_DRAIN_MS),
    workers: intFrom(env, 'FERRUM_WORKERS', 0) || os.availableParallelism(),
    bodyLimitBytes: intFrom(env, 'FERRUM_BODY_LIMIT', 64 * 1024),
    largeBodies: {
      thresholdBytes: Math.max(1, intFrom(env, 'FERRUM_LARGE_BODY_BYTES', 256 * 1024)),
      perProject: Math.max(0, intFrom(env, 'FERRUM_LARGE_BODIES_PER_PROJECT', 2)),
      bytesPerSecond: Math.max(0, intFrom(env, 'FERRUM_LARGE_BODY_BYTES_PER_SECOND', 32 * 1024 * 1024)),
    },
    logLevel: env.LOG_LEVEL || 'info',
    logFormat: oneOf(env, 'FERRUM_LOG_FORMAT', LOG_FORMATS, 'auto'),
    logRequests: env.FERRUM_LOG_REQUESTS === '1',
    publicScheme: env.FERRUM_PUBLIC_SCHEME || 'http',
    publicHost: nonEmpty(env.FERRUM_PUBLIC_HOST),
    outboundAllow: listFrom(env.FERRUM_OUTBOUND_ALLOW),
    trustProxy: trustProxyFrom(env),
  };
}
