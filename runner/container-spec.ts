import path from 'node:path';
import type { RunnerConfig } from '../src/core/config.js';
import type { CodeRevision, Task } from '../src/worker/types.js';
import type { ContainerSpec } from './docker-executor.js';
import { CONFIG_FILE, PAYLOAD_FILE } from './task-files.js';

export interface SpecInputs {
  task: Task;
  revision: CodeRevision;
  image: string;
  filesDir: string;
  labels: Record<string, string>;
  config: RunnerConfig;
}

/**
 * The container of one task: the environment every task gets, the code's own env_vars,
 * and for zip packages the code's command with the -payload -config -id -d arguments.
 */
export function containerSpecOf({ task, revision, image, filesDir, labels, config }: SpecInputs): ContainerSpec {
  const payloadFile = path.posix.join(config.taskDir, PAYLOAD_FILE);
  const configFile = path.posix.join(config.taskDir, CONFIG_FILE);
  const env = {
    ...revision.env_vars,
    PAYLOAD_FILE: payloadFile,
    CONFIG_FILE: configFile,
    TASK_ID: task.id,
    TASK_DIR: config.taskDir,
    PROJECT_ID: task.project_id,
    CODE_NAME: task.code_name,
  };
  const isZip = revision.blob !== undefined;
  const zipArgs = ['-payload', payloadFile, '-config', configFile, '-id', task.id, '-d', config.taskDir];
  let cmd: string[] | undefined;
  // The command is a shell line; for zip packages "$@" passes the arguments on to it.
  if (revision.command) cmd = isZip ? ['/bin/sh', '-c', `${revision.command} "$@"`, 'sh', ...zipArgs] : ['/bin/sh', '-c', revision.command];
  return {
    image,
    cmd,
    env: Object.entries(env).map(([name, value]) => `${name}=${value}`),
    workingDir: isZip ? config.taskDir : undefined,
    labels,
    filesDir,
    taskDir: config.taskDir,
    network: config.network,
    memoryBytes: config.memoryMb * 1024 * 1024,
    pidsLimit: config.pidsLimit,
    nanoCpus: config.milliCpus * 1_000_000,
  };
}
