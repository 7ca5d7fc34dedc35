import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** What the configuration allows as webhook targets (docs/api.md §15, §17). */
export interface TargetPolicy {
  allowHttp: boolean;
  allowPrivateTargets: boolean;
}

/**
 * Whether an address is an ordinary public one. ipaddr.js names every special
 * range (loopback, private, link-local with the 169.254.169.254 metadata
 * service, carrier-grade NAT, unique-local, multicast, reserved, IPv4-mapped
 * and -translated forms, …); only `unicast` is neither of them.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // process() turns ::ffff:10.0.0.1 into 10.0.0.1, so it is judged as IPv4.
  return ipaddr.process(address).range() === 'unicast';
}

/** The host of a URL as a connection names it: IPv6 literals without brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Why a webhook URL is refused (a reason of the error catalogue), or undefined. */
export function urlProblem(raw: string, policy: TargetPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'isUrl';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'isUrl';
  if (url.username !== '' || url.password !== '') return 'isUrl';
  if (url.protocol === 'http:' && !policy.allowHttp) return 'httpsRequired';
  const host = hostOf(url);
  if (isIP(host) !== 0 && !policy.allowPrivateTargets && !isPublicAddress(host)) {
    return 'privateTarget';
  }
  return undefined;
}

const REGISTRATION_LOOKUP_MS = 3000;

/**
 * At registration: a name that resolves to any non-public address is refused
 * (unless allowed). A name that does not resolve (yet) is accepted: every
 * delivery checks the address it connects to anyway.
 */
export async function resolvesToPrivate(raw: string, policy: TargetPolicy): Promise<boolean> {
  if (policy.allowPrivateTargets) return false;
  const host = hostOf(new URL(raw));
  if (isIP(host) !== 0) return !isPublicAddress(host);
  const addresses = await new Promise<LookupAddress[]>((resolve) => {
    const timer = setTimeout(() => resolve([]), REGISTRATION_LOOKUP_MS);
    dnsLookup(host, { all: true }, (error, found) => {
      clearTimeout(timer);
      resolve(error ? [] : found);
    });
  });
  return addresses.some((entry) => !isPublicAddress(entry.address));
}

/** Raised by safeLookup: the connection is never opened. */
export class TargetNotAllowedError extends Error {
  readonly code = 'ETARGETNOTALLOWED';
  constructor(host: string, address?: string) {
    super(
      address
        ? `${host} resolves to ${address}, which is not a public address`
        : `${host} is not a public address`,
    );
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http(s).request: resolves the name once, keeps only public
 * addresses and hands exactly those to the socket, so the address checked is
 * the address connected to (no window for DNS rebinding). Handles both the
 * single-address form and the `all: true` form Node's happy-eyeballs uses.
 */
export function safeLookup(
  hostname: string,
  options: { family?: number | string; all?: boolean },
  callback: LookupCallback,
): void {
  const family = options.family === 'IPv6' ? 6 : options.family === 'IPv4' ? 4 : options.family;
  dnsLookup(hostname, { all: true, family: (family as number) || 0 }, (error, addresses) => {
    if (error) return callback(error, '');
    const allowed = addresses.filter((entry) => isPublicAddress(entry.address));
    if (allowed.length === 0) {
      return callback(new TargetNotAllowedError(hostname, addresses[0]?.address), '');
    }
    if (options.all) return callback(null, allowed);
    callback(null, allowed[0].address, allowed[0].family);
  });
}
