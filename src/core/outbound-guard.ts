import dns, { type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { buildConnector, type Agent } from 'undici';

/** Address ranges a tenant's URL may not reach: this machine, its networks, the cloud metadata service. */
const INTERNAL_RANGES: Array<[string, number, 'ipv4' | 'ipv6']> = [
  ['0.0.0.0', 8, 'ipv4'], // "this network"
  ['10.0.0.0', 8, 'ipv4'], // private
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['169.254.0.0', 16, 'ipv4'], // link-local, incl. 169.254.169.254
  ['172.16.0.0', 12, 'ipv4'], // private
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.168.0.0', 16, 'ipv4'], // private
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, broadcast
  ['::', 96, 'ipv6'], // unspecified, loopback, IPv4-compatible
  ['64:ff9b::', 96, 'ipv6'], // NAT64 of any IPv4 address
  ['fc00::', 7, 'ipv6'], // unique-local
  ['fe80::', 10, 'ipv6'], // link-local
  ['fec0::', 10, 'ipv6'], // site-local (deprecated)
  ['ff00::', 8, 'ipv6'], // multicast
];

const internal = new BlockList();
for (const [network, prefix, family] of INTERNAL_RANGES) internal.addSubnet(network, prefix, family);

/** `::ffff:a.b.c.d` and `::ffff:hhhh:hhhh` are IPv4 addresses in IPv6 clothing. */
function unmapped(address: string): string {
  const match = /^::ffff:(?:0:)?(.+)$/i.exec(address);
  if (!match) return address;
  const rest = match[1]!;
  if (isIP(rest) === 4) return rest;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(rest);
  if (!hex) return address;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** A connection the guard refused; its message names the address and the setting that opens it. */
export class OutboundRefused extends Error {
  readonly code = 'ERR_OUTBOUND_REFUSED';
}

/**
 * Decides which addresses the server may connect to on a tenant's behalf. Internal addresses
 * are refused unless FERRUM_OUTBOUND_ALLOW names their CIDR, the address or the host name.
 * Checked on the resolved address at connect time (see guardedAgentOptions), so a name that
 * resolves elsewhere the second time (DNS rebinding) is caught too.
 */
export class OutboundGuard {
  private readonly allowedRanges = new BlockList();
  private readonly allowedHosts = new Set<string>();

  constructor(allow: string[]) {
    for (const entry of allow) {
      const [network, prefix] = entry.split('/');
      const family = isIP(network ?? '');
      if (family === 0) {
        if (prefix !== undefined) throw new Error(`FERRUM_OUTBOUND_ALLOW: "${entry}" is not a CIDR`);
        this.allowedHosts.add(entry.toLowerCase().replace(/\.$/, ''));
      } else if (prefix === undefined) {
        this.allowedRanges.addAddress(network!, family === 4 ? 'ipv4' : 'ipv6');
      } else {
        const bits = Number(prefix);
        if (!Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128))
          throw new Error(`FERRUM_OUTBOUND_ALLOW: "${entry}" has a bad prefix length`);
        this.allowedRanges.addSubnet(network!, bits, family === 4 ? 'ipv4' : 'ipv6');
      }
    }
  }

  hostAllowed(hostname: string): boolean {
    return this.allowedHosts.has(hostname.toLowerCase().replace(/\.$/, ''));
  }

  /** Why `address` may not be reached (null when it may). */
  refusalOf(address: string, hostname = address): string | null {
    if (this.hostAllowed(hostname)) return null;
    const plain = unmapped(address);
    const family = isIP(plain) === 4 ? 'ipv4' : 'ipv6';
    if (!internal.check(plain, family) || this.allowedRanges.check(plain, family)) return null;
    const shown = hostname === address ? address : `${hostname} (${address})`;
    return `${shown} is an internal address (loopback, link-local, private or unique-local); FERRUM_OUTBOUND_ALLOW may allow it`;
  }

  /** dns.lookup that fails when any address of the name is refused. */
  private readonly lookup = (
    hostname: string,
    options: LookupOneOptions | LookupAllOptions,
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      for (const { address } of addresses) {
        const refusal = this.refusalOf(address, hostname);
        if (refusal) return callback(new OutboundRefused(refusal), []);
      }
      if ((options as LookupAllOptions).all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new Error(`${hostname} has no address`), []);
      callback(null, first.address, first.family);
    });
  };

  /** Agent options whose connections pass the guard (names at lookup, literal addresses before connecting). */
  agentConnect(timeoutMs: number): Agent.Options['connect'] {
    const connect = buildConnector({ timeout: timeoutMs, lookup: this.lookup } as buildConnector.BuildOptions);
    return (options, callback) => {
      const literal = options.hostname.replace(/^\[(.*)\]$/, '$1');
      const refusal = isIP(literal) ? this.refusalOf(literal) : null;
      if (refusal) return callback(new OutboundRefused(refusal), null);
      return connect(options, callback);
    };
  }
}
