import { Command } from 'commander';
import { action } from '../action.js';
import { oldSpelling } from '../old-spelling.js';
import { columns } from '../columns.js';

const PROJECT_COLUMNS = columns('id', 'name', 'status', 'user_id', 'task_count', 'shared_with');

const defineView = (command: Command) =>
  command.description('show a project (the configured one by default)').action(
    action(async ({ client, api, out }, projectId?: string) => {
      out.record(await client.identity.project(projectId ?? api.projectId()));
    }),
  );

export function projectsCommand(): Command {
  const projects = new Command('projects').description('projects');
  projects
    .command('list')
    .description('list the projects you own or that are shared with you')
    .action(
      action(async ({ client, out }) => {
        const result = await client.identity.projects();
        out.table(result.projects ?? [], PROJECT_COLUMNS, result);
      }),
    );
  projects
    .command('create <name>')
    .description('create a project')
    .action(action(async ({ client, out }, name: string) => out.record(await client.identity.createProject(name))));
  defineView(projects.command('view [project_id]'));
  projects
    .command('delete <project_id>')
    .description('delete a project')
    .action(
      action(async ({ client, out }, projectId: string) => {
        out.confirm(await client.identity.deleteProject(projectId));
      }),
    );
  for (const verb of ['share', 'unshare'] as const) {
    projects
      .command(`${verb} <project_id> <users...>`)
      .description(verb === 'share' ? 'share a project with users (ids or e-mails)' : 'withdraw the share from users')
      .action(
        action(async ({ client, out }, projectId: string, userIds: string[]) => {
          const users = userIds.map((userId) => ({ user_id: userId }));
          const project = await client.identity[verb](projectId, users);
          out.record(project);
        }),
      );
  }
  defineView(oldSpelling(projects, 'get [project_id]', 'ferrum projects view'));
  return projects;
}
