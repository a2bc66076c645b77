import { Command } from 'commander';
import { type ApiClient, type Json } from '../api-client.js';
import { action } from '../context.js';
import { columns } from '../output.js';
import { integer } from '../options.js';

function cachePath(api: ApiClient, cache: string, rest = ''): string {
  return `/1/projects/${api.projectId}/caches/${encodeURIComponent(cache)}${rest}`;
}

const itemPath = (api: ApiClient, cache: string, key: string, rest = '') =>
  cachePath(api, cache, `/items/${encodeURIComponent(key)}${rest}`);

interface PutOptions {
  expiresIn?: number;
  add?: boolean;
  replace?: boolean;
  cas?: string;
  number?: boolean;
}

/** `--number` stores the value as a JSON number rather than a string. */
function valueOf(raw: string, asNumber: boolean | undefined): string | number {
  if (!asNumber) return raw;
  const value = Number(raw);
  return Number.isFinite(value) && raw.trim() !== '' ? value : raw;
}

export function cacheCommand(): Command {
  const cache = new Command('cache').description('caches of key/value items');
  cache
    .command('list')
    .description('list the caches of the project')
    .option('--page <n>', '0-based page of 100 caches', integer(0, 100))
    .action(
      action(async ({ api, out }, options: { page?: number }) => {
        const result = await api.get<Json[]>(`/1/projects/${api.projectId}/caches`, { page: options.page });
        out.table(result, columns('name', 'project_id'), result);
      }),
    );
  cache
    .command('info <cache>')
    .description('show the size of a cache')
    .action(action(async ({ api, out }, name: string) => out.record(await api.get<Json>(cachePath(api, name)))));
  cache
    .command('put <cache> <key> <value>')
    .description('store an item (creates the cache)')
    .option('--expires-in <seconds>', 'delete the item after this many seconds', integer(0, 604800))
    .option('--add', 'store only if the key is absent')
    .option('--replace', 'store only if the key is present')
    .option('--cas <cas>', 'store only if the item still has this cas')
    .option('--number', 'store the value as a JSON number')
    .action(
      action(async ({ api, out }, name: string, key: string, value: string, options: PutOptions) => {
        const item = {
          value: valueOf(value, options.number),
          expires_in: options.expiresIn,
          add: options.add,
          replace: options.replace,
          cas: options.cas,
        };
        const result = await api.put<{ msg: string }>(itemPath(api, name, key), item);
        out.message(result.msg, result);
      }),
    );
  cache
    .command('get <cache> <key>')
    .description("print an item's value (the whole item with --json)")
    .action(
      action(async ({ api, out }, name: string, key: string) => {
        const item = await api.get<{ value: unknown }>(itemPath(api, name, key));
        out.message(String(item.value), item);
      }),
    );
  cache
    .command('incr <cache> <key>')
    .argument('[amount]', 'integer to add; negative decrements', integer(-Number.MAX_SAFE_INTEGER), 1)
    .description('add amount (default 1) to a numeric item and print the result')
    .action(
      action(async ({ api, out }, name: string, key: string, amount: number) => {
        const result = await api.post<{ value: number }>(itemPath(api, name, key, '/increment'), { amount });
        out.message(String(result.value), result);
      }),
    );
  cache
    .command('delete <cache> <key>')
    .description('delete an item')
    .action(
      action(async ({ api, out }, name: string, key: string) => {
        out.confirm(await api.delete<{ msg: string }>(itemPath(api, name, key)));
      }),
    );
  cache
    .command('clear <cache>')
    .description('delete every item of a cache')
    .action(
      action(async ({ api, out }, name: string) => {
        out.confirm(await api.post<{ msg: string }>(cachePath(api, name, '/clear')));
      }),
    );
  cache
    .command('delete-cache <cache>')
    .description('delete a cache and its items')
    .action(
      action(async ({ api, out }, name: string) => {
        out.confirm(await api.delete<{ msg: string }>(cachePath(api, name)));
      }),
    );
  return cache;
}
