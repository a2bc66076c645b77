import fs from 'node:fs';
import { Command } from 'commander';
import type { Json } from '../api-client.js';
import { clusterIdOf } from '../cluster-ref.js';
import { action } from '../action.js';
import { oldSpelling } from '../old-spelling.js';
import { CliError } from '../errors.js';
import { columns } from '../columns.js';

const CLUSTER_COLUMNS = columns('id', 'name', 'user_id', 'memory', 'cpu_share');
const RUNNER_COLUMNS = columns('instance_id', 'hostname', 'version', 'slots', 'busy', 'tasks', 'updated_at');
const TOKEN_COLUMNS = columns('id', 'created_at');

/** A cluster definition from a JSON file (`-` for stdin): the body of create or update. */
function clusterFile(file: string): Json {
  let text: string;
  try {
    text = fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`, 2);
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    return parsed as Json;
  } catch (error) {
    throw new CliError(`${file} is not a JSON object: ${(error as Error).message}`, 2);
  }
}

const defineView = (command: Command) =>
  command.description('show a cluster with its machines').action(
    action(async ({ client, out }, ref: string) => {
      const result = await client.clusters.get(await clusterIdOf(client, ref));
      out.record(result.cluster ?? {}, result);
    }),
  );

const defineEdit = (command: Command) =>
  command.description('change a cluster from a JSON file of the fields to change (- for stdin)').action(
    action(async ({ client, out }, ref: string, file: string) => {
      const body = clusterFile(file);
      const result = await client.clusters.update(await clusterIdOf(client, ref), body);
      out.record(result.cluster ?? {}, result);
    }),
  );

/** `ferrum clusters …`: the worker clusters of the signed-in user. */
export function clustersCommand(): Command {
  const clusters = new Command('clusters').description('worker clusters (yours and those shared with you)');
  clusters
    .command('list')
    .description('list clusters')
    .action(
      action(async ({ client, out }) => {
        const result = await client.clusters.list();
        out.table(result.clusters ?? [], CLUSTER_COLUMNS, result);
      }),
    );
  defineView(clusters.command('view <cluster>'));
  clusters
    .command('create [file]')
    .description(
      'create a cluster named --name, or from a JSON file (- for stdin), e.g. {"name": "gpu", "autoscale": {…}}',
    )
    .option('--name <name>', "the cluster's name (over the file's)")
    .action(
      action(async ({ client, out }, file: string | undefined, options: { name?: string }) => {
        if (file === undefined && options.name === undefined) throw new CliError('give --name or a cluster file', 2);
        const body = { ...(file === undefined ? {} : clusterFile(file)), ...options };
        const result = await client.clusters.create(body);
        out.record(result.cluster ?? {}, result);
      }),
    );
  defineEdit(clusters.command('edit <cluster> <file>'));
  clusters
    .command('delete <cluster>')
    .description('delete a cluster (terminate its instances first)')
    .action(
      action(async ({ client, out }, ref: string) =>
        out.confirm(await client.clusters.remove(await clusterIdOf(client, ref))),
      ),
    );
  clusters
    .command('terminate <cluster>')
    .description('retire every instance of a cluster (running tasks finish first)')
    .action(
      action(async ({ client, out }, ref: string) =>
        out.confirm(await client.clusters.terminate(await clusterIdOf(client, ref))),
      ),
    );
  clusters.addCommand(tokensCommand());
  defineView(oldSpelling(clusters, 'show <cluster>', 'ferrum clusters view'));
  defineEdit(oldSpelling(clusters, 'update <cluster> <file>', 'ferrum clusters edit'));
  return clusters;
}

/** `ferrum clusters tokens …`: runner tokens of a cluster (the secret is shown once, at creation). */
function tokensCommand(): Command {
  const tokens = new Command('tokens').description("a cluster's runner tokens");
  tokens
    .command('list <cluster>')
    .description('list runner tokens (without their secrets)')
    .action(
      action(async ({ client, out }, ref: string) => {
        const result = await client.clusters.tokens(await clusterIdOf(client, ref));
        out.table(result.tokens ?? [], TOKEN_COLUMNS, result);
      }),
    );
  tokens
    .command('create <cluster>')
    .description('create a runner token; its secret is printed only now')
    .action(
      action(async ({ client, out }, ref: string) => {
        const result = await client.clusters.createToken(await clusterIdOf(client, ref));
        out.record(result.token ?? {}, result);
      }),
    );
  tokens
    .command('delete <cluster> <token_id>')
    .description('revoke a runner token at once')
    .action(
      action(async ({ client, out }, ref: string, tokenId: string) => {
        out.confirm(await client.clusters.deleteToken(await clusterIdOf(client, ref), tokenId));
      }),
    );
  return tokens;
}

/** `ferrum runners list <cluster>`: the runners heartbeating in a cluster and what they run now. */
export function runnersCommand(): Command {
  const runners = new Command('runners').description('runners of a cluster');
  runners
    .command('list <cluster>')
    .description('list the runners online in a cluster, their host and the tasks they run now')
    .action(
      action(async ({ client, out }, ref: string) => {
        const result = await client.clusters.runners(await clusterIdOf(client, ref));
        const rows = (result.runners ?? []).map((runner) => ({ ...runner, tasks: (runner.tasks ?? []).join(' ') }));
        out.table(rows, RUNNER_COLUMNS, result);
      }),
    );
  return runners;
}
