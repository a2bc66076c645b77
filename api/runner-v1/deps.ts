import type { Config } from '../../src/core/config.js';
import type { FeatureStore } from '../../src/core/features/feature-store.js';
import type { WorkerServices } from '../../src/worker/services.js';
import type { HeldTasks } from '../../src/worker/tasks/running/held-tasks.js';

/** What the runner API's route groups are given. */
export interface RunnerRouteDeps {
  config: Config;
  worker: WorkerServices;
  tasks: HeldTasks;
  /** Where a gateway runner's heartbeat records the storage flags it knows. */
  features: FeatureStore;
}
