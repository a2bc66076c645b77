import dns from 'node:dns/promises';
import { isIP } from 'node:net';
import type { OutboundGuard } from '../../../core/outbound-guard.js';
import { DOCKER_HUB, registryOfImage } from './registry-credentials.js';

/** "127.0.0.1:5000" → "127.0.0.1", "[::1]:5000" → "::1", "registry.example" → itself. */
function hostOfRegistry(registry: string): string {
  const bracketed = /^\[([^\]]+)\]/.exec(registry);
  if (bracketed) return bracketed[1]!;
  return registry.replace(/:\d*$/, '');
}

/**
 * Pulling an image makes the engine connect to the registry its name gives, so a tenant's image
 * name could make it probe this machine or its networks (127.0.0.1:<port>/x). The registry's
 * host must pass the outbound guard push URLs pass: internal addresses are refused unless
 * FERRUM_OUTBOUND_ALLOW names them.
 */
export class RegistryGuard {
  constructor(private readonly outbound: OutboundGuard) {}

  /** Why the engine may not pull `image` from its registry (null when it may). */
  async refusalOf(image: string): Promise<string | null> {
    const registry = registryOfImage(image);
    if (registry === DOCKER_HUB) return null;
    const host = hostOfRegistry(registry);
    if (this.outbound.hostAllowed(host)) return null;
    for (const address of await addressesOf(host)) {
      const refusal = this.outbound.refusalOf(address, host);
      if (refusal) return `its registry ${refusal}`;
    }
    return null;
  }
}

/** A name that does not resolve cannot be pulled from: the engine's own lookup fails too. */
async function addressesOf(host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  try {
    return (await dns.lookup(host, { all: true })).map(({ address }) => address);
  } catch {
    return [];
  }
}
