import { Command } from 'commander';
import { action } from '../context.js';
import { columns } from '../output.js';
import { integer } from '../options.js';

type Json = Record<string, unknown>;

const USER_COLUMNS = columns('user_id', 'email', 'status', 'admin', 'created_at');
const TOKEN_COLUMNS = columns('id', 'name', 'type', 'admin', 'user_id', 'token');
const PROJECT_COLUMNS = columns('id', 'name', 'status', 'user_id', 'task_count', 'shared_with');

const userPath = (user: string) => `/1/users/${encodeURIComponent(user)}`;
const projectPath = (project: string) => `/1/projects/${encodeURIComponent(project)}`;

export function usersCommand(): Command {
  const users = new Command('users').description('users of the identity service (admin tokens see everyone)');
  users
    .command('create')
    .description('create a user')
    .requiredOption('--email <email>', 'e-mail address')
    .requiredOption('--password <password>', 'password')
    .action(action(async ({ api, out }, options: { email: string; password: string }) => {
      const user = await api.post<Json>('/1/users', { email: options.email, password: options.password });
      out.record(user);
    }));
  users
    .command('list')
    .description('list users, a page at a time')
    .option('--per-page <n>', 'page size (1-100)', integer(1, 100))
    .option('--previous <user_id>', 'the last user id of the previous page')
    .action(action(async ({ api, out }, options: { perPage?: number; previous?: string }) => {
      const page = await api.get<{ users: Json[] }>('/1/users', { per_page: options.perPage, previous: options.previous });
      out.table(page.users, USER_COLUMNS, page);
    }));
  users
    .command('get <user>')
    .description('show a user by id or e-mail')
    .action(action(async ({ api, out }, user: string) => out.record(await api.get<Json>(userPath(user)))));
  users
    .command('update <user>')
    .description("change a user's e-mail or password")
    .option('--email <email>', 'new e-mail address')
    .option('--password <password>', 'new password')
    .action(action(async ({ api, out }, user: string, options: { email?: string; password?: string }) => {
      out.record(await api.patch<Json>(userPath(user), { email: options.email, password: options.password }));
    }));
  users
    .command('delete <user>')
    .description('delete a user by id or e-mail')
    .action(action(async ({ api, out }, user: string) => {
      const result = await api.delete<{ msg: string }>(userPath(user));
      out.message(result.msg, result);
    }));
  return users;
}

export function tokensCommand(): Command {
  const tokens = new Command('tokens').description('access tokens');
  tokens
    .command('list')
    .description('list the tokens of a user (yours by default)')
    .option('--user-id <user>', 'another user (admin tokens only)')
    .action(action(async ({ api, out }, options: { userId?: string }) => {
      const result = await api.get<{ tokens: Json[] }>('/1/tokens', { user_id: options.userId });
      out.table(result.tokens, TOKEN_COLUMNS, result);
    }));
  tokens
    .command('create')
    .description('create a token')
    .option('--name <name>', 'a name to recognise it by')
    .option('--admin', 'an admin token (admin tokens only)')
    .option('--user-id <user>', 'for another user (admin tokens only)')
    .action(action(async ({ api, out }, options: { name?: string; admin?: boolean; userId?: string }) => {
      out.record(await api.post<Json>('/1/tokens', { name: options.name, admin: options.admin, user_id: options.userId }));
    }));
  tokens
    .command('delete <token_id>')
    .description('revoke a token by its id')
    .action(action(async ({ api, out }, tokenId: string) => {
      const result = await api.delete<{ msg: string }>(`/1/tokens/${encodeURIComponent(tokenId)}`);
      out.message(result.msg, result);
    }));
  return tokens;
}

export function projectsCommand(): Command {
  const projects = new Command('projects').description('projects');
  projects
    .command('list')
    .description('list the projects you own or that are shared with you')
    .action(action(async ({ api, out }) => {
      const result = await api.get<{ projects: Json[] }>('/1/projects');
      out.table(result.projects, PROJECT_COLUMNS, result);
    }));
  projects
    .command('create <name>')
    .description('create a project')
    .action(action(async ({ api, out }, name: string) => out.record(await api.post<Json>('/1/projects', { name }))));
  projects
    .command('get [project_id]')
    .description('show a project (the configured one by default)')
    .action(action(async ({ api, out }, projectId?: string) => {
      out.record(await api.get<Json>(projectPath(projectId ?? decodeURIComponent(api.projectId))));
    }));
  projects
    .command('delete <project_id>')
    .description('delete a project')
    .action(action(async ({ api, out }, projectId: string) => {
      const result = await api.delete<{ msg: string }>(projectPath(projectId));
      out.message(result.msg, result);
    }));
  for (const verb of ['share', 'unshare'] as const) {
    projects
      .command(`${verb} <project_id> <users...>`)
      .description(verb === 'share' ? 'share a project with users (ids or e-mails)' : 'withdraw the share from users')
      .action(action(async ({ api, out }, projectId: string, userIds: string[]) => {
        const project = await api.patch<Json>(`${projectPath(projectId)}/${verb}`, userIds.map((userId) => ({ user_id: userId })));
        out.record(project);
      }));
  }
  return projects;
}
