import type { BootstrapResult } from '../src/auth/bootstrap.js';

/** A started server process, in one process or as a primary with HTTP workers; how it stops. */
export interface Served {
  url: string;
  bootstrap: BootstrapResult | null;
  ironJsonPath: string | null;
  /** The graceful stop (StopSteps). */
  stop(): Promise<void>;
  stopNow(): Promise<void>;
}
