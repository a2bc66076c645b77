import type Docker from 'dockerode';

/**
 * Why a hot function's container exited, as its caller is told: out of memory, or its exit code;
 * only that it exited when the engine has not said within `waitMs`.
 */
export async function exitMessage(container: Docker.Container, memoryBytes: number, waitMs: number): Promise<string> {
  let bound: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (bound = setTimeout(() => resolve(null), waitMs)));
  try {
    const exited = await Promise.race([container.wait().then(() => container.inspect()), late]);
    if (!exited) return 'the function container exited';
    if (exited.State.OOMKilled) return `the function ran out of memory (limit ${memoryBytes / 1024 / 1024} MiB)`;
    return `the function container exited with code ${exited.State.ExitCode}`;
  } catch {
    return 'the function container exited';
  } finally {
    clearTimeout(bound);
  }
}
