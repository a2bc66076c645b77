// How a tmpfs task folder is filled in the container, before the task's command runs.

/** Where the task files wait in the image's file system until the start copies them into a tmpfs task folder. */
export const STAGING_DIR = '/.ferrum-task';

/**
 * What goes into the task folder: a local folder, copied in through the engine as a tar stream,
 * or small text files by name, which the tmpfs task folder's prelude writes itself from the
 * environment (no archive copy, which costs the engine a mount and a helper process per task).
 */
export type TaskFilesSource = { dir: string } | { content: Record<string, string> };

/** Content files at most this large in all go through the environment (far below the kernel's 128 KiB per variable). */
const INLINE_MAX_BYTES = 32 * 1024;
const INLINE_NAME = /^[\w.-]+$/;
const INLINE_VAR = 'FERRUM_TASK_FILE_';

/** Whether these files can be written by the prelude from the environment. */
export function fitsInline(content: Record<string, string>): boolean {
  const entries = Object.entries(content);
  const bytes = entries.reduce((sum, [, text]) => sum + Buffer.byteLength(text), 0);
  return bytes <= INLINE_MAX_BYTES && entries.every(([name, text]) => INLINE_NAME.test(name) && !text.includes('\0'));
}

/**
 * The shell line that fills the tmpfs task folder ("$0") before it runs the task's command
 * ("$@"): a copy of the staged folder, or the content files written from the environment
 * (whose variables the task then does not see).
 */
export function preludeOf(files: TaskFilesSource): { script: string; env: string[] } {
  if ('dir' in files) return { script: `cp -Rp ${STAGING_DIR}/. "$0"/ && exec "$@"`, env: [] };
  const entries = Object.entries(files.content);
  const writes = entries.map(([name], i) => `printf '%s' "$${INLINE_VAR}${i}" > "$0"/'${name}'`);
  const vars = entries.map((_, i) => `${INLINE_VAR}${i}`);
  return {
    // As the copy leaves it when it may (the image's user owns the folder): not world-writable.
    script: [...writes, `unset ${vars.join(' ')}`, '{ chmod 755 "$0" 2>/dev/null; exec "$@"; }'].join(' && '),
    env: entries.map(([, text], i) => `${INLINE_VAR}${i}=${text}`),
  };
}
