// @ts-check
import { session } from '../api.js';
import { identity } from '../client.js';
import { field, form, h, table, time, toast } from '../dom.js';

export async function projectsPage(navigate) {
  const projects = await identity.projects();
  const rows = projects.map((project) => [
    h('a', { href: `#/projects/${project.id}` }, project.name),
    h('code', {}, project.id),
    project.status,
    project.shared_with.length ? `${project.shared_with.length} user(s)` : '—',
    time(project.created_at),
    project.id === session.projectId
      ? h('strong', {}, 'current')
      : h(
          'button',
          {
            onclick: () => {
              session.projectId = project.id;
              toast(`Using ${project.name}`);
              navigate('#/projects');
            },
          },
          'Use',
        ),
  ]);
  return h(
    'section',
    {},
    h('h1', {}, 'Projects'),
    table(['Name', 'Id', 'Status', 'Shared with', 'Created', ''], rows, { empty: 'No projects yet.' }),
    h('h2', {}, 'New project'),
    form([field('Name', { name: 'name', required: true })], 'Create project', async ({ name }, el) => {
      const project = await identity.createProject(name);
      session.projectId = session.projectId || project.id;
      el.reset();
      toast(`Created ${project.name}`);
      navigate('#/projects');
    }),
  );
}

export async function projectPage(navigate, projectId) {
  const project = await identity.project(projectId);
  const members = await Promise.all(
    project.shared_with.map((id) =>
      identity.user(id).then(
        (user) => user.email,
        () => id,
      ),
    ),
  );
  const share = (action, email) => identity.share(projectId, action, email);
  return h(
    'section',
    {},
    h('p', {}, h('a', { href: '#/projects' }, '← Projects')),
    h('h1', {}, project.name),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Id'),
      h('dd', {}, h('code', {}, project.id)),
      h('dt', {}, 'Status'),
      h('dd', {}, project.status),
      h('dt', {}, 'Created'),
      h('dd', {}, time(project.created_at)),
    ),
    h('h2', {}, 'Shared with'),
    table(
      ['User', ''],
      members.map((email) => [
        email,
        h(
          'button',
          {
            onclick: async () => {
              await share('unshare', email);
              toast(`Unshared from ${email}`);
              navigate(`#/projects/${projectId}`);
            },
          },
          'Unshare',
        ),
      ]),
      { empty: 'Not shared with anyone.' },
    ),
    form(
      [field('E-mail of the user to share with', { name: 'email', type: 'email', required: true })],
      'Share',
      async ({ email }) => {
        await share('share', email);
        toast(`Shared with ${email}`);
        navigate(`#/projects/${projectId}`);
      },
    ),
  );
}
