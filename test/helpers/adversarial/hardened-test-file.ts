import { beforeAll } from 'vitest';
import { madeOnFirstUse, readThrough } from '../read-through.js';
import type { TestServer } from '../server.js';
import { WorkerClient } from '../worker.js';
export { useHardenedServer } from './hardened-server.js';
import { newTenant, plantVictimData, type Tenant } from './tenant-data.js';

/** An attacking tenant, a worker client of its project, and a check that a victim tenant's data is intact. */
export interface AttackerAndVictim {
  attacker: Tenant;
  worker: WorkerClient;
  victimIntact(): Promise<void>;
}

/** Before the file's tests: tenants `<name>-attacker` and `<name>-victim`, the victim's data planted. */
export function useAttackerAndVictim(server: TestServer, name: string): AttackerAndVictim {
  let attacker: Tenant | undefined;
  let intact: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    attacker = await newTenant(server, `${name}-attacker`);
    intact = await plantVictimData(await newTenant(server, `${name}-victim`));
  });
  const attackerNow = () => {
    if (!attacker) throw new Error('the attacker is read before the beforeAll that makes it');
    return attacker;
  };
  return {
    attacker: readThrough(attackerNow),
    worker: madeOnFirstUse(() => new WorkerClient(attackerNow().http, attackerNow().projectId)),
    victimIntact: () => intact!(),
  };
}
