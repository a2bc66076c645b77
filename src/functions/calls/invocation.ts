import type { FunctionInvocation } from './function-executor.js';
import type { LoadedRoute } from '../types.js';

/** The request a call answers, as the /r/ endpoint received it. */
export interface CallRequest {
  callId: string;
  method: string;
  requestUrl: string;
  /** Names in lower case. */
  headers: Record<string, string>;
  body: Buffer;
}

/** Each variable also under its FN_-prefixed name (names already so prefixed stay as they are). */
function withFnNames(env: Record<string, string>): Record<string, string> {
  const both: Record<string, string> = { ...env };
  for (const [name, value] of Object.entries(env)) if (!name.startsWith('FN_')) both[`FN_${name}`] = value;
  return both;
}

/** `x-request-id` → `HEADER_X_REQUEST_ID`. */
export function headerVariable(name: string): string {
  return `HEADER_${name.toUpperCase().replace(/[^A-Z0-9_]/g, '_')}`;
}

/** Each route's environment, made once per loaded route (RouteCache hands out the same objects). */
const routeEnvs = new WeakMap<LoadedRoute['route'], { app: LoadedRoute['app']; env: Record<string, string> }>();

/** The route's environment: app config, route config over it, and the route's identity. */
export function routeEnvOf({ app, route }: LoadedRoute): Record<string, string> {
  const made = routeEnvs.get(route);
  if (made?.app === app) return made.env;
  const env = withFnNames({
    ...app.config,
    ...route.config,
    APP_NAME: app.name,
    ROUTE: route.path,
    FN_FORMAT: route.format,
    FN_MEMORY: String(route.memory),
    // The `http-stream` contract's identity variables: this platform's ids are the names.
    FN_APP_ID: app.name,
    FN_FN_ID: `${app.name}${route.path}`,
    FN_TYPE: route.type,
  });
  routeEnvs.set(route, { app, env });
  return env;
}

/** A cold call's own variables (hot formats carry the same in their request instead). */
export function callEnvOf(
  request: Pick<CallRequest, 'callId' | 'method' | 'requestUrl' | 'headers'>,
): Record<string, string> {
  const env: Record<string, string> = {
    METHOD: request.method,
    REQUEST_URL: request.requestUrl,
    CALL_ID: request.callId,
  };
  for (const [name, value] of Object.entries(request.headers)) env[headerVariable(name)] = value;
  return withFnNames(env);
}

export function invocationOf(loaded: LoadedRoute, request: CallRequest): FunctionInvocation {
  const { app, route } = loaded;
  return {
    callId: request.callId,
    appName: app.name,
    projectId: app.projectId,
    path: route.path,
    image: route.image,
    format: route.format,
    type: route.type,
    memoryMb: route.memory,
    timeoutMs: route.timeout * 1000,
    idleTimeoutMs: route.idleTimeout * 1000,
    maxConcurrency: route.maxConcurrency,
    method: request.method,
    requestUrl: request.requestUrl,
    headers: request.headers,
    routeEnv: routeEnvOf(loaded),
    body: request.body,
  };
}
