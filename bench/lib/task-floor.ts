// Floors for bench:worker (a): the same short containers through the Docker API without Ferrum's
// queue, Redis or API. What `docker run --rm` asks of the engine, without the CLI process; and
// Ferrum's own container of a task (limits, tmpfs task folder, prelude, removal) through the
// runner's executor. Beside Ferrum's runs they tell its part of a task's cost from the engine's.
import type Docker from 'dockerode';
import type { ContainerSpec, DockerExecutor } from '../../runner/docker-executor.js';

/** Runs `count` jobs, `parallel` at a time. */
export async function runMany(count: number, parallel: number, job: () => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      next++;
      await job();
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
}

function drained(output: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    output.on('end', resolve);
    output.on('close', resolve);
    output.on('error', () => resolve());
    output.resume();
  });
}

/**
 * The calls `docker run --rm --network none <image> /bin/sh -c <command>` makes: create (removed
 * by the engine at its exit), attach, wait for the removal, start.
 */
export async function dockerRunByApi(docker: Docker, image: string, command: string): Promise<void> {
  const container = await docker.createContainer({
    Image: image,
    Cmd: ['/bin/sh', '-c', command],
    AttachStdout: true,
    AttachStderr: true,
    HostConfig: { AutoRemove: true, NetworkMode: 'none' },
  });
  const ended = drained(await container.attach({ stream: true, stdout: true, stderr: true }));
  // Gone already (a 404) is removed too.
  const removed = container.wait({ condition: 'removed' }).catch(() => undefined);
  await container.start();
  await Promise.all([removed, ended]);
}

/** One task's container as the runner runs it, with no queue, Redis or API around it. */
export async function executorRun(executor: DockerExecutor, spec: ContainerSpec): Promise<void> {
  const result = await executor.run(spec, () => {}, new AbortController().signal, 60_000);
  if (result.exitCode !== 0) throw new Error(`the floor's container exited with ${result.exitCode}`);
}
