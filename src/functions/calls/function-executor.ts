import type { RouteFormat, RouteType } from '../types.js';

/** What a runner needs to run one call of a function route. */
export interface FunctionInvocation {
  callId: string;
  appName: string;
  /** The app's project: whose registry credentials and image rights the call runs with. */
  projectId: string;
  /** The route's path, e.g. `/hello`. */
  path: string;
  image: string;
  format: RouteFormat;
  /** `sync` or `async`: FN_TYPE of the `http-stream` contract. */
  type: RouteType;
  memoryMb: number;
  timeoutMs: number;
  /** Hot formats: how long an idle container is kept. */
  idleTimeoutMs: number;
  /** Hot formats: the most containers of this route at once. */
  maxConcurrency: number;
  method: string;
  /** The full URL the caller asked for. */
  requestUrl: string;
  /** Request headers, names in lower case. */
  headers: Record<string, string>;
  /**
   * The container's environment for the route: app and route config, APP_NAME, ROUTE, FN_FORMAT,
   * FN_MEMORY, each also under its FN_-prefixed name. The same for every call of one route version,
   * so a hot container can be reused while it is unchanged.
   */
  routeEnv: Record<string, string>;
  body: Buffer;
}

/** How a call ended. */
export interface FunctionResult {
  outcome: 'success' | 'error' | 'timeout';
  /** HTTP status for the caller: the function's own (hot formats) or 200; 502 on error, 504 on timeout. */
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** What the function wrote to stderr during this call. */
  stderr: string;
  /**
   * The rest of the call's log when it cannot be complete at answer time (hot containers: the
   * engine relays stderr apart from the answer); resolves once nothing more of this call can come.
   */
  laterLog?: Promise<string>;
  /** Why it failed, for the caller and the call record. */
  errorMessage?: string;
}

/** Runs function calls: one container per call (`default`) or a pool of hot containers (`http`, `json`, `http-stream`). */
export interface FunctionExecutor {
  invoke(invocation: FunctionInvocation): Promise<FunctionResult>;
  /** Stops every container this executor started. */
  close(): Promise<void>;
}
