import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ironJsonOf, useCliSession } from '../../helpers/cli.js';
import { scaled } from '../../helpers/pace.js';

const session = useCliSession();
const ferrum = (...args: string[]) => session.ferrum(args);

describe('ferrum users, tokens and projects with an iron.json', { timeout: scaled(120_000) }, () => {
  it('creates, lists, shows and deletes a user; tables by default, JSON with --json', async () => {
    const created = await ferrum(
      'users',
      'create',
      '--email',
      'cli-user@example.com',
      '--password',
      'secret-password',
      '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    const user = JSON.parse(created.stdout);
    expect(user).toMatchObject({ email: 'cli-user@example.com' });

    const listed = await ferrum('users', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    const [header, ...rows] = listed.stdout.trim().split('\n');
    expect(header).toMatch(/^USER_ID\s+EMAIL\s+STATUS\s+ADMIN\s+CREATED_AT$/);
    expect(rows.some((row) => row.startsWith(user.user_id) && row.includes('cli-user@example.com'))).toBe(true);

    const shown = await ferrum('users', 'view', 'cli-user@example.com');
    expect(shown.stdout).toMatch(new RegExp(`^user_id\\s+${user.user_id}$`, 'm'));

    const deleted = await ferrum('users', 'delete', user.user_id);
    expect(deleted).toMatchObject({ code: 0, stdout: 'Deleted\n' });
    const gone = await ferrum('users', 'view', user.user_id);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toBe('ferrum: User not found\n');
  });

  it('creates, lists and deletes tokens; the new token works', async () => {
    const created = JSON.parse((await ferrum('tokens', 'create', '--name', 'ci', '--json')).stdout);
    expect(created).toMatchObject({ name: 'ci', admin: false });

    const listed = JSON.parse((await ferrum('tokens', 'list', '--json')).stdout);
    expect(listed.tokens.map((token: any) => token.id)).toContain(created.id);
    const table = await ferrum('tokens', 'list');
    expect(table.stdout).toMatch(new RegExp(`^${created.id}\\s+ci\\s+standard\\s+false`, 'm'));

    const withNewToken = await ferrum('projects', 'view', '--token', created.token);
    expect(withNewToken.code, withNewToken.stderr).toBe(0);

    expect((await ferrum('tokens', 'delete', created.id)).stdout).toBe('Deleted\n');
    const revoked = await ferrum('projects', 'view', '--token', created.token);
    expect(revoked.code).toBe(1);
    expect(revoked.stderr).toMatch(/^ferrum: .+/);
  });

  it('creates, lists, shows, shares and unshares projects', async () => {
    const other = (
      await session.server.http.post('/1/users', { email: 'share-me@example.com', password: 'secret-password' })
    ).body;
    const project = JSON.parse((await ferrum('projects', 'create', 'cli project', '--json')).stdout);
    expect(project).toMatchObject({ name: 'cli project' });

    const listed = await ferrum('projects', 'list');
    expect(listed.stdout).toMatch(new RegExp(`^${project.id}\\s+cli project\\s+`, 'm'));
    expect(listed.stdout).toMatch(new RegExp(`^${session.server.projectId}\\s`, 'm'));

    const configured = await ferrum('projects', 'view');
    expect(configured.stdout).toMatch(new RegExp(`^id\\s+${session.server.projectId}$`, 'm'));

    const shared = JSON.parse((await ferrum('projects', 'share', project.id, 'share-me@example.com', '--json')).stdout);
    expect(shared.shared_with).toEqual(['share-me@example.com']);
    const unshared = JSON.parse((await ferrum('projects', 'unshare', project.id, other.user_id, '--json')).stdout);
    expect(unshared.shared_with).toEqual([]);

    expect((await ferrum('projects', 'delete', project.id)).stdout).toBe('Deleted\n');
  });
});

describe('ferrum configuration sources', { timeout: scaled(120_000) }, () => {
  it('works with IRON_* environment variables alone', async () => {
    const url = new URL(session.server.url);
    const env = {
      IRON_TOKEN: session.server.token,
      IRON_PROJECT_ID: session.server.projectId,
      IRON_HOST: url.hostname,
      IRON_PORT: url.port,
    };
    const result = await session.cli.run(['projects', 'view', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).id).toBe(session.server.projectId);
  });

  it('works with the .ferrum/iron.json that `ferrum start` writes, and flags override files', async () => {
    const dir = fs.mkdtempSync(path.join(session.cli.home, 'started-'));
    fs.mkdirSync(path.join(dir, '.ferrum'));
    fs.writeFileSync(path.join(dir, '.ferrum', 'iron.json'), JSON.stringify(ironJsonOf(session.server)));
    const result = await session.cli.run(['projects', 'view', '--json'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);

    const badToken = await session.cli.run(['projects', 'view', '--token', 'not-a-token'], { cwd: dir });
    expect(badToken.code).toBe(1);
    expect(badToken.stderr).toMatch(/^ferrum: .*token/i);
  });

  it('reports a missing token or project and a malformed iron.json as usage errors', async () => {
    const noConfig = await session.cli.run(['mq', 'list', '--project-id', session.server.projectId]);
    expect(noConfig.code).toBe(2);
    expect(noConfig.stderr).toMatch(/no token: set token in iron.json, IRON_TOKEN, or pass --token/);
    expect(noConfig.stderr).toMatch(/Usage: ferrum mq list/);

    const noProject = await session.cli.run(['mq', 'list', '--token', session.server.token]);
    expect(noProject.code).toBe(2);
    expect(noProject.stderr).toMatch(/no project id/);

    const broken = fs.mkdtempSync(path.join(session.cli.home, 'broken-'));
    fs.writeFileSync(path.join(broken, 'iron.json'), '{"token": ');
    const malformed = await session.cli.run(['projects', 'list'], { cwd: broken });
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/iron.json is not valid JSON/);
  });

  it('cannot reach a server: says so and exits 1', async () => {
    const result = await ferrum('projects', 'list', '--port', '1');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^ferrum: cannot reach http:\/\/127.0.0.1:1/);
  });
});

/** The help `args` print exits 0 and lists each of `names` at the start of a line (indented by two). */
async function expectListed(args: string[], names: string[]): Promise<void> {
  const help = await session.cli.run(args);
  expect(help.code).toBe(0);
  for (const name of names) expect(help.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
}

describe('ferrum usage', { timeout: scaled(120_000) }, () => {
  it('help lists the command groups; <group> --help lists its commands', async () => {
    const groups = 'start controller runner admin users tokens projects mq cache worker clusters runners functions';
    await expectListed(['help'], groups.split(' '));
    await expectListed(['mq', '--help'], 'create edit post reserve peek delete view list clear messages'.split(' '));
  });

  it('usage errors print the usage and exit 2', async () => {
    const missingArgument = await ferrum('users', 'view');
    expect(missingArgument.code).toBe(2);
    expect(missingArgument.stderr).toMatch(/missing required argument 'user'/);
    expect(missingArgument.stderr).toMatch(/Usage: ferrum users view/);

    const unknownCommand = await ferrum('users', 'frobnicate');
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.stderr).toMatch(/unknown command 'frobnicate'/);

    const badNumber = await ferrum('users', 'list', '--per-page', 'many');
    expect(badNumber.code).toBe(2);
    expect(badNumber.stderr).toMatch(/--per-page <n>' argument 'many' is invalid. must be an integer from 1 to 100/);

    const noSubcommand = await ferrum('tokens');
    expect(noSubcommand.code).toBe(2);
    expect(noSubcommand.stderr).toMatch(/Usage: ferrum tokens/);
  });
});
