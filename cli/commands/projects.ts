import { Command } from 'commander';
import type { Json } from '../api-client.js';
import { action } from '../action.js';
import { oldSpelling } from '../old-spelling.js';
import { columns } from '../columns.js';

const PROJECT_COLUMNS = columns('id', 'name', 'status', 'user_id', 'task_count', 'shared_with');

const projectPath = (project: string) => `/1/projects/${encodeURIComponent(project)}`;

const defineView = (command: Command) =>
  command.description('show a project (the configured one by default)').action(
    action(async ({ api, out }, projectId?: string) => {
      out.record(await api.get<Json>(projectPath(projectId ?? decodeURIComponent(api.projectId))));
    }),
  );

export function projectsCommand(): Command {
  const projects = new Command('projects').description('projects');
  projects
    .command('list')
    .description('list the projects you own or that are shared with you')
    .action(
      action(async ({ api, out }) => {
        const result = await api.get<{ projects: Json[] }>('/1/projects');
        out.table(result.projects, PROJECT_COLUMNS, result);
      }),
    );
  projects
    .command('create <name>')
    .description('create a project')
    .action(action(async ({ api, out }, name: string) => out.record(await api.post<Json>('/1/projects', { name }))));
  defineView(projects.command('view [project_id]'));
  projects
    .command('delete <project_id>')
    .description('delete a project')
    .action(
      action(async ({ api, out }, projectId: string) => {
        out.confirm(await api.delete<{ msg: string }>(projectPath(projectId)));
      }),
    );
  for (const verb of ['share', 'unshare'] as const) {
    projects
      .command(`${verb} <project_id> <users...>`)
      .description(verb === 'share' ? 'share a project with users (ids or e-mails)' : 'withdraw the share from users')
      .action(
        action(async ({ api, out }, projectId: string, userIds: string[]) => {
          const project = await api.patch<Json>(
            `${projectPath(projectId)}/${verb}`,
            userIds.map((userId) => ({ user_id: userId })),
          );
          out.record(project);
        }),
      );
  }
  defineView(oldSpelling(projects, 'get [project_id]', 'ferrum projects view'));
  return projects;
}
