import { Command } from 'commander';
import { action } from '../action.js';
import { oldSpelling } from '../old-spelling.js';
import { columns } from '../columns.js';
import { integer } from '../options.js';

const USER_COLUMNS = columns('user_id', 'email', 'status', 'admin', 'created_at');

const defineView = (command: Command) =>
  command
    .description('show a user by id or e-mail')
    .action(action(async ({ client, out }, user: string) => out.record(await client.identity.user(user))));

const defineEdit = (command: Command) =>
  command
    .description("change a user's e-mail or password")
    .option('--email <email>', 'new e-mail address')
    .option('--password <password>', 'new password')
    .action(
      action(async ({ client, out }, user: string, options: { email?: string; password?: string }) => {
        out.record(await client.identity.updateUser(user, { email: options.email, password: options.password }));
      }),
    );

export function usersCommand(): Command {
  const users = new Command('users').description('users of the identity service (admin tokens see everyone)');
  users
    .command('create')
    .description('create a user')
    .requiredOption('--email <email>', 'e-mail address')
    .requiredOption('--password <password>', 'password')
    .action(
      action(async ({ client, out }, options: { email: string; password: string }) => {
        const user = await client.identity.createUser({ email: options.email, password: options.password });
        out.record(user);
      }),
    );
  users
    .command('list')
    .description('list users, a page at a time')
    .option('--per-page <n>', 'page size (1-100)', integer(1, 100))
    .option('--previous <user_id>', 'the last user id of the previous page')
    .action(
      action(async ({ client, out }, options: { perPage?: number; previous?: string }) => {
        const page = await client.identity.users({ per_page: options.perPage, previous: options.previous });
        out.table(page.users ?? [], USER_COLUMNS, page);
      }),
    );
  defineView(users.command('view <user>'));
  defineEdit(users.command('edit <user>'));
  users
    .command('delete <user>')
    .description('delete a user by id or e-mail')
    .action(
      action(async ({ client, out }, user: string) => {
        out.confirm(await client.identity.deleteUser(user));
      }),
    );
  defineView(oldSpelling(users, 'get <user>', 'ferrum users view'));
  defineEdit(oldSpelling(users, 'update <user>', 'ferrum users edit'));
  return users;
}
