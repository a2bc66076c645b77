import type { KeySpace } from '../core/redis.js';

/**
 * Key names of the functions platform. The indexes of app names share the hash tag {fn}; an
 * app's record, config and routes share {fn:<app>} (a route's creation may create its app, and
 * every call reads both); the calls of one app share {fn-calls:<app>}; the dispatch queue of
 * one cluster (every app's line and the rings of apps and projects) shares {fn-q:<cluster>}.
 */
export class FunctionKeys {
  constructor(private readonly keys: KeySpace) {}

  private registry(...parts: string[]): string {
    return this.keys.of('{fn}', ...parts);
  }

  private ofApp(app: string, ...parts: string[]): string {
    return this.keys.of(`{fn:${app}}`, ...parts);
  }

  /** Zset (score 0, lexical order) of every app name. */
  apps() {
    return this.registry('apps');
  }
  /** Zset (score 0) of the app names of one project. */
  projectApps(projectId: string) {
    return this.registry('project-apps', projectId);
  }
  /** Zset (score 0) of the routes of one project's apps, as `<app><path>` (flag `route_index`). */
  projectRoutes(projectId: string) {
    return this.registry('project-routes', projectId);
  }
  /**
   * Hash of the hot containers each of a project's hot routes may keep per runner, as
   * `<app><path>` → `<max_concurrency>:<reserved at, ms>` (0 when read from the route itself):
   * what the `hot_containers` quota bounds (HotContainerRoom).
   */
  projectHotContainers(projectId: string) {
    return this.registry('project-hot-containers', projectId);
  }
  /** Set of the projects whose projectRoutes index was built from their apps' routes. */
  projectRoutesBuilt() {
    return this.registry('project-routes-built');
  }
  app(name: string) {
    return this.ofApp(name, 'app');
  }
  appConfig(name: string) {
    return this.ofApp(name, 'app', 'config');
  }
  /** Zset (score 0) of the paths of one app's routes. */
  routes(app: string) {
    return this.ofApp(app, 'routes');
  }
  route(app: string, path: string) {
    return this.ofApp(app, 'route', path);
  }
  routeConfig(app: string, path: string) {
    return this.ofApp(app, 'route', path, 'config');
  }
  routeHeaders(app: string, path: string) {
    return this.ofApp(app, 'route', path, 'headers');
  }

  /** Where an earlier version kept an app's and its routes' keys (all under {fn}); for moving them. */
  earlier = {
    app: (name: string) => this.registry('app', name),
    appConfig: (name: string) => this.registry('app', name, 'config'),
    routes: (app: string) => this.registry('routes', app),
    route: (app: string, path: string) => this.registry('route', app, path),
    routeConfig: (app: string, path: string) => this.registry('route', app, path, 'config'),
    routeHeaders: (app: string, path: string) => this.registry('route', app, path, 'headers'),
  };

  private calls(app: string, ...parts: string[]): string {
    return this.keys.of(`{fn-calls:${app}}`, ...parts);
  }
  /** Pub/sub channel: some app or route changed, cached routes are stale. */
  routesChanged() {
    return this.registry('routes-changed');
  }

  /** Zset (score 0) of the app's call ids; ids are time-ordered, so lexical order is age order. */
  callIndex(app: string) {
    return this.calls(app, 'index');
  }
  call(app: string, callId: string) {
    return this.calls(app, 'call', callId);
  }
  /** Exists while the app's project (or its owner) is suspended: its calls are not started (start-call.lua). */
  appSuspended(app: string) {
    return this.calls(app, 'suspended');
  }
  callLog(app: string, callId: string) {
    return this.calls(app, 'log', callId);
  }

  /** Counter of the project's async calls waiting for a runner (its queued_calls quota). */
  queuedCalls(projectId: string) {
    return this.keys.of(`{fn-p:${projectId}}`, 'queued-calls');
  }
  /** Zset: the project's counted calls (app and id, see count-call-bytes.lua) by when their records expire. */
  storedCalls(projectId: string) {
    return this.keys.of(`{fn-p:${projectId}}`, 'stored-calls');
  }
  /** Hash: the bytes each of the project's counted calls stores. */
  storedCallSizes(projectId: string) {
    return this.keys.of(`{fn-p:${projectId}}`, 'stored-call-sizes');
  }

  private queue(cluster: string, ...parts: string[]): string {
    return this.keys.of(`{fn-q:${cluster}}`, ...parts);
  }
  /** The one list of call messages of earlier versions, still taken from until empty. */
  pending(cluster: string) {
    return this.queue(cluster, 'pending');
  }
  /** List of one app's call messages waiting for a runner (pushed on the left, taken from the right). */
  appPending(cluster: string, app: string) {
    return this.queue(cluster, 'pending', app);
  }
  /** List, a ring: the apps of one project with calls waiting. */
  queuedApps(cluster: string, projectId: string) {
    return this.queue(cluster, 'ready', projectId);
  }
  /** List, a ring: the projects with calls waiting. */
  queuedProjects(cluster: string) {
    return this.queue(cluster, 'ready');
  }
  /** List of tokens, one per queued call, that blocked runners wait on (BLPOP). */
  wake(cluster: string) {
    return this.queue(cluster, 'wake');
  }
  /** List of the call messages one runner has taken and not yet finished. */
  inFlight(cluster: string, runnerId: string) {
    return this.queue(cluster, 'in-flight', runnerId);
  }
  /** Set of the runner ids that may hold in-flight calls. */
  holders(cluster: string) {
    return this.queue(cluster, 'holders');
  }

  /** Pub/sub channel on which a controller process receives the results of its sync calls. */
  replyChannel(processId: string) {
    return this.keys.of('fn-reply', processId);
  }
  /** String, kept briefly: the body of a sync call's answer too large to travel by pub/sub. */
  replyBody(callId: string) {
    return this.keys.of('fn-reply-body', callId);
  }
}
