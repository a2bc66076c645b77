import { byteQuotaReached, countQuotaReached, STORED_BYTES_COUNTED, type Quotas } from '../../auth/quotas.js';
import type { ProjectStorage } from '../../auth/stored-bytes.js';
import type { HttpError } from '../../core/errors.js';
import type { QueuedRefusal, QueuedRoom } from './records/task-store.js';

/** A project's quotas in force (its own over the operator's defaults), read when a task is queued. */
export type ProjectQuotas = (projectId: string) => Promise<Quotas>;

/** The room a project has for queued tasks, with the quotas it came from (to name them in a refusal). */
export interface QueuedRoomOf extends QueuedRoom {
  quotas: Quotas;
}

/**
 * Where every way of queueing a task (a client, a retry, a schedule, an `ironworker:///`
 * subscriber) finds the project's room: its queued_tasks quota, and its stored_bytes quota less
 * what its other services store. The task scripts reserve in it in the step that writes the
 * tasks (task-lib.lua's reserve_queued).
 */
export class QueuedTaskRoom {
  constructor(
    private readonly storage: ProjectStorage,
    private readonly quotasOf: ProjectQuotas,
  ) {}

  async of(projectId: string): Promise<QueuedRoomOf> {
    const quotas = await this.quotasOf(projectId);
    const allowance = await this.storage.allowance('tasks', projectId, quotas.stored_bytes);
    return { most: quotas.queued_tasks, allowance, quotas };
  }

  /** 403 naming queued_tasks, or 413 naming stored_bytes. */
  refusal(refused: QueuedRefusal, quotas: Quotas): HttpError {
    if (refused === 'queued_tasks')
      return countQuotaReached('queued_tasks', quotas.queued_tasks, 'tasks waiting for a runner');
    return byteQuotaReached('stored_bytes', quotas.stored_bytes, STORED_BYTES_COUNTED);
  }
}
