import { fail } from '../../core/errors.js';
import type { TaskService } from '../tasks/task-service.js';
import type { TaskQueuePause } from '../tasks/queues/task-queue-pause.js';
import type { StatsRange, TaskStats } from '../tasks/records/task-stats.js';
import type { Code, CodeRevision, TaskStatus } from '../types.js';
import type { ZipLimits } from '../../core/config.js';
import { checkZip, readZipText } from './archives/zip.js';
import { runtimeStartedBy } from './script-interpreter.js';
import type { CodeStore, Page } from './code-store.js';
import { shellScriptOf, uploadFrom, type StackSettings, type UploadForm } from './upload-rules.js';

// The head of a shell runner script read to find the program it starts.
const SCRIPT_HEAD_BYTES = 64 * 1024;

/** A code package and whether its task queue is paused. */
export interface CodeState {
  code: Code;
  paused: boolean;
}

export interface CodeServiceDeps {
  store: CodeStore;
  pause: TaskQueuePause;
  stats: TaskStats;
  tasks: TaskService;
  /** The stacks zip packages may run on, and the limits a zip must keep (FERRUM_WORKER_*). */
  uploads: StackSettings & { zip: ZipLimits };
}

/** The code packages of the worker API, one method per thing a client does. */
export class CodeService {
  constructor(private readonly deps: CodeServiceDeps) {}

  async list(projectId: string, page: Page): Promise<CodeState[]> {
    const codes = await this.deps.store.list(projectId, page);
    const paused = await this.deps.pause.pausedAmong(
      projectId,
      codes.map((code) => code.id),
    );
    return codes.map((code) => ({ code, paused: paused.has(code.id) }));
  }

  /**
   * A new revision of the package the upload names (a new package if none has the name), once
   * its `data` part keeps the upload rules and its zip the zip limits.
   */
  async upload(projectId: string, form: UploadForm, storedBytesQuota: number): Promise<Code> {
    const upload = uploadFrom(form.data, form.file, this.deps.uploads, await this.runtimeStartedBy(form));
    if (upload.zip) await checkZip(upload.zip, this.deps.uploads.zip);
    return this.deps.store.upload(projectId, upload, storedBytesQuota);
  }

  /** The runtime a zip package's shell script starts (runtime `sh`, no stack named), if any. */
  private async runtimeStartedBy(form: UploadForm): Promise<string | undefined> {
    const script = form.file && shellScriptOf(form.data);
    if (!form.file || !script) return undefined;
    const text = await readZipText(form.file, script, SCRIPT_HEAD_BYTES);
    return text === undefined ? undefined : runtimeStartedBy(text);
  }

  async get(projectId: string, codeId: string): Promise<CodeState> {
    const code = await this.deps.store.get(projectId, codeId);
    const paused = await this.deps.pause.pausedAmong(projectId, [code.id]);
    return { code, paused: paused.has(code.id) };
  }

  /** How many of the package's tasks last changed in `range`, by status. */
  async stats(projectId: string, codeId: string, range: StatsRange): Promise<Record<TaskStatus, number>> {
    await this.deps.store.get(projectId, codeId);
    return this.deps.stats.countByStatus(projectId, codeId, range);
  }

  /** Parks the package's tasks as they come due, until resumed. */
  async pause(projectId: string, codeId: string): Promise<void> {
    await this.deps.store.get(projectId, codeId);
    await this.deps.pause.pause(projectId, codeId);
  }

  async resume(projectId: string, codeId: string): Promise<void> {
    await this.deps.store.get(projectId, codeId);
    await this.deps.pause.resume(projectId, codeId);
  }

  /** Cancels every queued and running task of the package; returns how many. */
  async cancelAll(projectId: string, codeId: string): Promise<number> {
    await this.deps.store.get(projectId, codeId);
    return this.deps.tasks.cancelAll(projectId, codeId);
  }

  delete(projectId: string, codeId: string): Promise<void> {
    return this.deps.store.delete(projectId, codeId);
  }

  revisions(projectId: string, codeId: string, page: Page): Promise<CodeRevision[]> {
    return this.deps.store.revisions(projectId, codeId, page);
  }

  /** A revision (the newest when `rev` is not given) and its zip; 404 when it has none (any more). */
  async download(projectId: string, codeId: string, rev?: number): Promise<{ revision: CodeRevision; zip: Buffer }> {
    const revision = await this.deps.store.revision(projectId, codeId, rev);
    const zip = await this.deps.store.zip(revision);
    if (revision.archive_pruned) throw fail('code_zip_pruned', revision.rev, revision.name);
    if (!zip) throw fail('code_image_has_no_zip', revision.rev, revision.name);
    return { revision, zip };
  }
}
