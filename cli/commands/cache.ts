import { Command } from 'commander';
import { action } from '../action.js';
import { columns } from '../columns.js';
import { integer } from '../options.js';
import { commandPath, oldSpelling, tellOldSpelling } from '../old-spelling.js';
import { itemCommands } from './cache-items.js';

const defineView = (command: Command) =>
  command
    .description('show the size of a cache')
    .action(action(async ({ client, out }, name: string) => out.record(await client.cache.get(name))));

const defineDeleteCache = (command: Command) =>
  command
    .description('delete a cache and its items')
    .action(action(async ({ client, out }, name: string) => out.confirm(await client.cache.remove(name))));

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
      action(async ({ client, out, command }, name: string) => {
        const key = command.args[1];
        if (key === undefined) return out.confirm(await client.cache.remove(name));
        tellOldSpelling(`${commandPath(command)} <cache> <key>`, 'ferrum cache items delete');
        out.confirm(await client.cache.deleteItem(name, key));
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
      action(async ({ client, out }, options: { page?: number }) => {
        const result = await client.cache.list(options.page);
        out.table(result, columns('name', 'project_id'), result);
      }),
    );
  defineView(cache.command('view <cache>'));
  defineDelete(cache);
  cache
    .command('clear <cache>')
    .description('delete every item of a cache')
    .action(
      action(async ({ client, out }, name: string) => {
        out.confirm(await client.cache.clear(name));
      }),
    );
  itemCommands(cache);
  defineView(oldSpelling(cache, 'info <cache>', 'ferrum cache view'));
  defineDeleteCache(oldSpelling(cache, 'delete-cache <cache>', 'ferrum cache delete'));
  return cache;
}
