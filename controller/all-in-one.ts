import type { Logger } from 'pino';
import type { Config } from '../src/core/config.js';
import { Runner } from '../runner/runner.js';
import { startController, type ControllerOptions, type RunningController } from './main.js';

export interface AllInOne {
  controller: RunningController;
  runner: Runner;
  stop(): Promise<void>;
}

/**
 * `ferrum start`: the controller plus one runner sharing its Redis. Stopping drains both at once
 * (the controller keeps serving its running tasks' API calls while /ready answers 503), then
 * stops the controller.
 */
export async function startAllInOne(config: Config, options: ControllerOptions = {}): Promise<AllInOne> {
  const controller = await startController(config, options);
  let runner: Runner;
  try {
    // The runner's metrics join the controller's, on its /metrics.
    runner = await Runner.start(
      config,
      controller.ctx.redisUrl,
      controller.app.log as Logger,
      undefined,
      controller.ctx.metrics.registry,
    );
  } catch (error) {
    await controller.stop();
    throw error;
  }
  // Hot calls whose route has an idle container here skip the queue.
  controller.ctx.localFunctions.runner = runner.localFunctions;
  return {
    controller,
    runner,
    async stop() {
      controller.ctx.localFunctions.runner = null;
      await Promise.all([controller.drain(), runner.stop()]);
      await controller.stop();
    },
  };
}
