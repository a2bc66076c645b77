import { Command } from 'commander';
import type { Json } from '../api-client.js';
import { action } from '../action.js';
import { columns } from '../columns.js';
import { integer } from '../options.js';
import { commandPath, oldSpelling, tellOldSpelling } from '../old-spelling.js';
import { cachePath, itemCommands, itemPath } from './cache-items.js';

const defineView = (command: Command) =>
  command
    .description('show the size of a cache')
    .action(action(async ({ api, out }, name: string) => out.record(await api.get<Json>(cachePath(api, name)))));

const defineDeleteCache = (command: Command) =>
  command
    .description('delete a cache and its items')
    .action(
      action(async ({ api, out }, name: string) =>
        out.confirm(await api.delete<{ msg: string }>(cachePath(api, name))),
      ),
    );

/**
 * `cache delete <cache>` deletes the cache. The old spelling `cache delete <cache> <key>` (an item)
 * still works for a release, saying to use `cache items delete` instead.
 */
function defineDelete(cache: Command): void {
  cache
    .command('delete <cache>')
    .description('delete a cache and its items')
    .allowExcessArguments()
    .action(
      action(async ({ api, out, command }, name: string) => {
        const key = command.args[1];
        if (key === undefined) return out.confirm(await api.delete<{ msg: string }>(cachePath(api, name)));
        tellOldSpelling(`${commandPath(command)} <cache> <key>`, 'ferrum cache items delete');
        out.confirm(await api.delete<{ msg: string }>(itemPath(api, name, key)));
      }),
    );
}

/** `ferrum cache …`: caches (list, view, delete, clear) and their items. */
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
  defineView(cache.command('view <cache>'));
  defineDelete(cache);
  cache
    .command('clear <cache>')
    .description('delete every item of a cache')
    .action(
      action(async ({ api, out }, name: string) => {
        out.confirm(await api.post<{ msg: string }>(cachePath(api, name, '/clear')));
      }),
    );
  itemCommands(cache);
  defineView(oldSpelling(cache, 'info <cache>', 'ferrum cache view'));
  defineDeleteCache(oldSpelling(cache, 'delete-cache <cache>', 'ferrum cache delete'));
  return cache;
}
