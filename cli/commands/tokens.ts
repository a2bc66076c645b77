import { Command } from 'commander';
import { action } from '../action.js';
import { columns } from '../columns.js';

const TOKEN_COLUMNS = columns('id', 'name', 'type', 'admin', 'user_id', 'token_hint');

export function tokensCommand(): Command {
  const tokens = new Command('tokens').description('access tokens');
  tokens
    .command('list')
    .description('list the tokens of a user (yours by default)')
    .option('--user-id <user>', 'another user (admin tokens only)')
    .action(
      action(async ({ client, out }, options: { userId?: string }) => {
        const result = await client.identity.tokens({ user_id: options.userId });
        out.table(result.tokens ?? [], TOKEN_COLUMNS, result);
      }),
    );
  tokens
    .command('create')
    .description('create a token')
    .option('--name <name>', 'a name to recognise it by')
    .option('--admin', 'an admin token (admin tokens only)')
    .option('--user-id <user>', 'for another user (admin tokens only)')
    .action(
      action(async ({ client, out }, options: { name?: string; admin?: boolean; userId?: string }) => {
        const token = { name: options.name, admin: options.admin, user_id: options.userId };
        out.record(await client.identity.createToken(token));
      }),
    );
  tokens
    .command('delete <token_id>')
    .description('revoke a token by its id')
    .action(
      action(async ({ client, out }, tokenId: string) => {
        out.confirm(await client.identity.deleteToken(tokenId));
      }),
    );
  return tokens;
}
