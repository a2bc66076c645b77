import type { Config } from '../../src/core/config.js';
import type { WorkerServices } from '../../src/worker/services.js';
import type { GatewaySession } from '../../src/worker/tasks/running/gateway-session.js';
import type { HeldTasks } from '../../src/worker/tasks/running/held-tasks.js';

/** What the runner API's route groups are given. */
export interface RunnerRouteDeps {
  config: Config;
  worker: WorkerServices;
  tasks: HeldTasks;
  /** A gateway runner's long-poll, heartbeat and leaving. */
  session: GatewaySession;
}
