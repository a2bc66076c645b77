import type { Command } from 'commander';
import { action } from '../action.js';
import { integer } from '../options.js';

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

function definePut(cache: Command): void {
  cache
    .command('put <cache> <key> <value>')
    .description('store an item (creates the cache)')
    .option('--expires-in <seconds>', 'delete the item after this many seconds', integer(0, 604800))
    .option('--add', 'store only if the key is absent')
    .option('--replace', 'store only if the key is present')
    .option('--cas <cas>', 'store only if the item still has this cas')
    .option('--number', 'store the value as a JSON number')
    .action(
      action(async ({ client, out }, name: string, key: string, value: string, options: PutOptions) => {
        const { expiresIn, add, replace, cas } = options;
        const item = { value: valueOf(value, options.number), expires_in: expiresIn, add, replace, cas };
        const result = await client.cache.putItem(name, key, item);
        out.message(result.msg ?? '', result);
      }),
    );
}

function defineGetAndIncr(cache: Command): void {
  cache
    .command('get <cache> <key>')
    .description("print an item's value (the whole item with --json)")
    .action(
      action(async ({ client, out }, name: string, key: string) => {
        const item = await client.cache.item(name, key);
        out.message(String(item.value), item);
      }),
    );
  cache
    .command('incr <cache> <key>')
    .argument('[amount]', 'integer to add; negative decrements', integer(-Number.MAX_SAFE_INTEGER), 1)
    .description('add amount (default 1) to a numeric item and print the result')
    .action(
      action(async ({ client, out }, name: string, key: string, amount: number) => {
        const result = await client.cache.increment(name, key, amount);
        out.message(String(result.value), result);
      }),
    );
}

/** The item commands of `ferrum cache`: put, get, incr, and `items delete`. */
export function itemCommands(cache: Command): void {
  definePut(cache);
  defineGetAndIncr(cache);
  cache
    .command('items')
    .description('items of a cache by key')
    .command('delete <cache> <key>')
    .description('delete an item')
    .action(
      action(async ({ client, out }, name: string, key: string) => {
        out.confirm(await client.cache.deleteItem(name, key));
      }),
    );
}
