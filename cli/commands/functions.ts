import { Command } from 'commander';
import type { Dispatcher } from 'undici';
import type { CommandContext } from '../context.js';
import { action } from '../action.js';
import { ApiError, reasonOf } from '../errors.js';
import { columns } from '../columns.js';
import { inlineOrFile, integer, keyValue, readStdin } from '../options.js';
import { withProgress } from '../progress.js';
import { callsCommand } from './function-calls.js';

const ROUTE_COLUMNS = columns('path', 'image', 'type', 'format', 'memory', 'timeout');

function appsCommand(): Command {
  const apps = new Command('apps').description('function apps');
  apps
    .command('list')
    .description('list apps')
    .action(
      action(async ({ client, out }) => {
        const result = await client.functions.apps();
        out.table(result.apps, columns('name', 'config'), result);
      }),
    );
  apps
    .command('create <name>')
    .description('create an app')
    .option('--config <KEY=VALUE>', 'configuration handed to every function of the app (repeat for more)', keyValue)
    .action(
      action(async ({ client, out }, name: string, options: { config?: Record<string, string> }) => {
        const result = await client.functions.createApp(name, options.config);
        out.record(result.app, result);
      }),
    );
  apps
    .command('delete <name>')
    .description('delete an app')
    .action(
      action(async ({ client, out }, name: string) => {
        const result = await client.functions.deleteApp(name);
        out.message(result.message ?? 'Deleted', result);
      }),
    );
  return apps;
}

interface RouteOptions {
  image: string;
  memory?: number;
  type?: string;
  format?: string;
  timeout?: number;
  config?: Record<string, string>;
}

function routesCommand(): Command {
  const routes = new Command('routes').description('routes of an app: a path mapped to an image');
  routes
    .command('list <app>')
    .description("list an app's routes")
    .action(
      action(async ({ client, out }, app: string) => {
        const result = await client.functions.routes(app);
        out.table(result.routes, ROUTE_COLUMNS, result);
      }),
    );
  routes
    .command('create <app> <path>')
    .description('add a route')
    .requiredOption('--image <image>', 'container image of the function')
    .option('--memory <mb>', 'memory limit in MB', integer(1))
    .option('--type <type>', 'sync or async')
    .option('--format <format>', 'default, http or json')
    .option('--timeout <seconds>', 'run time limit', integer(1))
    .option('--config <KEY=VALUE>', 'configuration of the function (repeat for more)', keyValue)
    .action(
      action(async ({ client, out }, app: string, path: string, options: RouteOptions) => {
        const route = { path: path.startsWith('/') ? path : `/${path}`, ...options };
        const result = await client.functions.createRoute(app, route);
        out.record(result.route, result);
      }),
    );
  routes
    .command('delete <app> <path>')
    .description('delete a route')
    .action(
      action(async ({ client, out }, app: string, path: string) => {
        const result = await client.functions.deleteRoute(app, path);
        out.message(result.message ?? 'Deleted', result);
      }),
    );
  return routes;
}

interface CallOptions {
  data?: string;
  file?: string;
  method: string;
  contentType: string;
}

async function callRoute(
  { api, client }: CommandContext,
  app: string,
  path: string,
  options: CallOptions,
  body: string | undefined,
) {
  const method = options.method.toUpperCase() as Dispatcher.HttpMethod;
  const request = api.raw(method, client.paths.invoke(app, path), {
    anonymous: true,
    body,
    headers: body === undefined ? {} : { 'content-type': options.contentType },
  });
  const response = await withProgress(`calling ${app}${path}…`, request);
  if (response.status < 200 || response.status >= 300)
    throw new ApiError(response.status, reasonOf(response.status, response.text));
  return response;
}

/** The call's body: --data, --file, or whatever is piped to stdin; none when stdin is a terminal or empty. */
async function requestBody(options: CallOptions): Promise<string | undefined> {
  if (options.data !== undefined || options.file !== undefined) {
    return inlineOrFile({ inline: '--data', file: '--file' }, options.data, options.file);
  }
  if (process.stdin.isTTY) return undefined;
  const piped = await readStdin();
  return piped === '' ? undefined : piped;
}

export function functionsCommand(): Command {
  const functions = new Command('functions').description('function apps, routes and calls');
  functions.addCommand(appsCommand());
  functions.addCommand(routesCommand());
  functions.addCommand(callsCommand());
  functions
    .command('call <app> <path>')
    .description("call a route and print the function's output; the body comes from --data, --file or piped stdin")
    .option('-d, --data <body>', 'request body')
    .option('--file <file>', 'request body from a file, - for stdin')
    .option('-X, --method <method>', 'HTTP method', 'POST')
    .option('--content-type <type>', 'Content-Type of the body', 'application/json')
    .action(
      action(async (ctx, app: string, path: string, options: CallOptions) => {
        const { out } = ctx;
        const body = await requestBody(options);
        const response = await callRoute(ctx, app, path, options, body);
        const callId = response.headers['fn-call-id'];
        if (out.structured)
          return out.printData({ status: response.status, call_id: callId ?? null, body: response.text });
        if (callId) process.stderr.write(`Fn-Call-Id: ${String(callId)}\n`);
        process.stdout.write(response.text);
      }),
    );
  return functions;
}
