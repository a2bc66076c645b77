export const ROUTE_TYPES = ['sync', 'async'] as const;
export type RouteType = (typeof ROUTE_TYPES)[number];

export const ROUTE_FORMATS = ['default', 'http', 'json', 'http-stream'] as const;
export type RouteFormat = (typeof ROUTE_FORMATS)[number];

/** Calls move queued → running → success | error | timeout. */
export const CALL_STATUSES = ['queued', 'running', 'success', 'error', 'timeout'] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];
export type CallOutcome = 'success' | 'error' | 'timeout';

/** String-valued settings handed to functions as environment variables. */
export type ConfigMap = Record<string, string>;

export interface App {
  name: string;
  projectId: string;
  config: ConfigMap;
  createdAt: number;
  updatedAt: number;
}

/** The settable fields of a route (all but its identity and times). */
export interface RouteSettings {
  image: string;
  /** MiB. */
  memory: number;
  type: RouteType;
  format: RouteFormat;
  /** Seconds. */
  timeout: number;
  /** Seconds. */
  idleTimeout: number;
  maxConcurrency: number;
  /** Set on every response of the route's calls. */
  headers: ConfigMap;
  config: ConfigMap;
  /** HS256 key of the bearer tokens callers must present; null = public route. */
  secret: string | null;
}

export interface Route extends RouteSettings {
  appName: string;
  path: string;
  createdAt: number;
  updatedAt: number;
}

/** A route together with the app it belongs to, as one call needs them. */
export interface LoadedRoute {
  app: App;
  route: Route;
}

export interface CallRecord {
  id: string;
  appName: string;
  path: string;
  projectId: string;
  format: RouteFormat;
  type: RouteType;
  status: CallStatus;
  createdAt: number;
  startedAt: number | null;
  completedAt: number | null;
  error: string | null;
}
