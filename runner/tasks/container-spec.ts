import path from 'node:path';
import type { RunnerConfig } from '../../src/core/config.js';
import type { CodeRevision, Task } from '../../src/worker/types.js';
import type { ContainerSpec, TaskFilesSource } from '../docker-executor.js';
import { CONFIG_FILE, PAYLOAD_FILE } from './task-files.js';

export interface SpecInputs {
  task: Task;
  revision: CodeRevision;
  image: string;
  /** The image's own command, run with the task's arguments when the code names no command. */
  imageCmd: string[];
  files: TaskFilesSource;
  labels: Record<string, string>;
  config: RunnerConfig;
  /** The task's own API token (valid only for this task while it runs). */
  taskToken: string;
}

/**
 * How the task reaches the API: Ferrum's names and the ones iron client libraries read
 * (Python's iron_core reads IRON_PROTOCOL; Node's, Ruby's and Java's IRON_SCHEME).
 */
function apiAccessEnv(apiUrl: string, token: string, projectId: string): Record<string, string> {
  const url = new URL(apiUrl);
  const protocol = url.protocol.replace(':', '');
  return {
    FERRUM_API_URL: url.origin,
    FERRUM_TASK_TOKEN: token,
    IRON_TOKEN: token,
    IRON_PROJECT_ID: projectId,
    IRON_HOST: url.hostname,
    IRON_PORT: url.port || (protocol === 'https' ? '443' : '80'),
    IRON_PROTOCOL: protocol,
    IRON_SCHEME: protocol,
  };
}

/**
 * The container of one task: the environment every task gets, the code's own env_vars (which
 * win over the API access variables: a package that sets IRON_TOKEN keeps its own), and the
 * code's command, or else the image's, with the -payload -config -id -d arguments appended.
 */
export function containerSpecOf({
  task,
  revision,
  image,
  imageCmd,
  files,
  labels,
  config,
  taskToken,
}: SpecInputs): ContainerSpec {
  const payloadFile = path.posix.join(config.taskDir, PAYLOAD_FILE);
  const configFile = path.posix.join(config.taskDir, CONFIG_FILE);
  const env = {
    ...apiAccessEnv(config.apiUrl, taskToken, task.project_id),
    ...revision.env_vars,
    PAYLOAD_FILE: payloadFile,
    CONFIG_FILE: configFile,
    TASK_ID: task.id,
    TASK_DIR: config.taskDir,
    PROJECT_ID: task.project_id,
    CODE_NAME: task.code_name,
  };
  const isZip = revision.blob !== undefined;
  const taskArgs = ['-payload', payloadFile, '-config', configFile, '-id', task.id, '-d', config.taskDir];
  // The command is a shell line; "$@" passes the arguments on to it.
  const cmd = revision.command
    ? ['/bin/sh', '-c', `${revision.command} "$@"`, 'sh', ...taskArgs]
    : [...imageCmd, ...taskArgs];
  return {
    image,
    cmd,
    env: Object.entries(env).map(([name, value]) => `${name}=${value}`),
    workingDir: isZip ? config.taskDir : undefined,
    labels,
    files,
    taskDir: config.taskDir,
    network: config.network,
    memoryBytes: config.memoryMb * 1024 * 1024,
    pidsLimit: config.pidsLimit,
    nanoCpus: config.milliCpus * 1_000_000,
    capAdd: config.capAdd,
    nofile: config.nofile,
    diskMb: config.diskMb,
  };
}
