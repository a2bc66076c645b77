import { fail } from '../../core/errors.js';
import { DEFAULT_CLUSTER } from '../clusters/cluster-types.js';
import { LIMITS, type Code } from '../types.js';

/**
 * The task admission rules: what a task request may ask for, and what it gets when it leaves a
 * setting out. The API's schemas take their bounds from here (api/worker-v2/tasks.ts).
 */
export const TASK_BOUNDS = {
  priority: { minimum: 0, maximum: 2 },
  timeout: { minimum: 1, maximum: LIMITS.maxTimeout },
  delay: { minimum: 0, maximum: LIMITS.maxDelay },
} as const;

/** One element of a queue request, already checked against the API's schema. */
export interface TaskRequest {
  code_name: string;
  payload: string;
  priority?: number;
  cluster?: string;
  timeout?: number;
  delay?: number;
  label?: string;
}

/** A payload is at most LIMITS.payloadBytes bytes; `field` names it in the refusal. */
export function checkPayload(payload: string, field = 'payload'): void {
  if (Buffer.byteLength(payload) > LIMITS.payloadBytes) throw fail('field_too_long', field, LIMITS.payloadBytes);
}

/** Every payload of a queue request, checked before any is written (fields named `tasks[i].payload` when several). */
export function checkPayloads(requests: TaskRequest[]): void {
  requests.forEach((request, i) =>
    checkPayload(request.payload, requests.length > 1 ? `tasks[${i}].payload` : 'payload'),
  );
}

/** The settings a task runs with: the request's, else its code package's priority, the longest timeout, no delay, the default cluster. */
export function taskSettings(code: Code, request: TaskRequest) {
  return {
    priority: request.priority ?? code.priority ?? 0,
    timeout: request.timeout ?? LIMITS.maxTimeout,
    delay: request.delay ?? 0,
    cluster: request.cluster ?? DEFAULT_CLUSTER,
  };
}
