import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { redisErrorKind } from '../src/core/redis.js';
import { cacheApi } from '../api/cache/index.js';
import { dashboard } from '../api/dashboard.js';
import { functionCallsApi } from '../api/functions/invoke.js';
import { functionsApi } from '../api/functions/index.js';
import { keepFunctionsOriginToCalls } from '../api/functions/origin.js';
import { historyApi } from '../api/history.js';
import { identityApi } from '../api/identity/index.js';
import { mqV1Api } from '../api/mq-v1/index.js';
import { mqV3Api } from '../api/mq-v3/index.js';
import { systemApi } from '../api/system.js';
import { adminFeaturesApi } from '../api/admin-features.js';
import { workerV2Api } from '../api/worker-v2/index.js';
import { runnerV1Api } from '../api/runner-v1/index.js';
import type { OpenedContext } from './app-context.js';
import { answerClientErrors } from './http/client-errors.js';
import { installContentTypes } from './http/content-types.js';
import { frameworkErrors, installErrorHandling, IRON_ERROR_SHAPE } from '../api/error-handler.js';
import { installHttpMetrics } from './http/http-metrics.js';
import { installLargeBodyGate } from './http/large-body-gate.js';
import { installJsonContentType } from '../api/json-content-type.js';
import { applyMethodOverride } from './http/method-override.js';
import { requestForLog } from './http/request-log.js';
import { requestLogger } from './http/request-logger.js';
import { installRouteList } from './http/route-list.js';
import { installRouteFacts } from './http/route-facts.js';
import { installValidation } from './http/validation.js';

/**
 * The HTTP server with every API, not yet listening, logging to the context's logger. The
 * context's services are closed when the server closes, after every plugin's own onClose.
 */
export async function build({ ctx, close }: OpenedContext): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log.child({}, { serializers: { req: requestForLog } }),
    logController: new LogController({ disableRequestLogging: !ctx.config.logRequests }),
    childLoggerFactory: requestLogger,
    bodyLimit: ctx.config.bodyLimitBytes,
    trustProxy: ctx.config.trustProxy,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    frameworkErrors,
    clientErrorHandler: answerClientErrors(IRON_ERROR_SHAPE),
    rewriteUrl: applyMethodOverride,
    routerOptions: { maxParamLength: 1000, caseSensitive: true, ignoreTrailingSlash: true },
  });
  // onClose hooks run last-registered first: this one, registered before any plugin, runs last.
  app.addHook('onClose', close);
  installRouteList(app);
  installRouteFacts(app);
  installErrorHandling(app, IRON_ERROR_SHAPE, (error) => ctx.metrics.redisErrors.inc({ kind: redisErrorKind(error) }));
  installValidation(app);
  installContentTypes(app);
  installJsonContentType(app);
  installLargeBodyGate(app, ctx.config.largeBodies, ctx.budget);
  installHttpMetrics(app, ctx.metrics);
  ctx.httpDrain.install(app);
  keepFunctionsOriginToCalls(app, ctx.config.functions);
  app.decorateRequest('principal', null);
  app.decorateRequest('project', null);

  await app.register(systemApi, { ctx });
  await app.register(identityApi, { ctx });
  await app.register(adminFeaturesApi, { ctx });
  await app.register(cacheApi, { ctx });
  await app.register(mqV3Api, { ctx });
  await app.register(mqV1Api, { ctx });
  await app.register(historyApi, { ctx });
  await app.register(workerV2Api, { ctx });
  await app.register(runnerV1Api, { ctx });
  await app.register(functionsApi, { ctx, prefix: '/v1' });
  await app.register(functionCallsApi, { ctx, prefix: '/r' });
  await app.register(dashboard, { ctx });
  await app.ready();
  return app;
}
