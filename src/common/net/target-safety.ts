import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** What the configuration allows as outbound targets: webhooks and feed imports (WEBHOOK_ALLOW_*). */
export interface TargetPolicy {
  allowHttp: boolean;
  allowPrivateTargets: boolean;
}

/**
 * Whether an address is an ordinary public one. ipaddr.js names every special
 * range (loopback, private, link-local with the 169.254.169.254 metadata
 * service, carrier-grade NAT, unique-local, multicast, reserved, …); only
 * `unicast` is neither of them. An IPv6 address that embeds IPv4 addresses is
 * judged by them: the packet ends up there (a translator, a relay or the
 * host's own stack unwraps it).
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded === 'local') return false;
  if (embedded) return embedded.every((v4) => v4.range() === 'unicast');
  return v6.range() === 'unicast';
}

/** Mask of the Teredo client address, which is stored inverted. */
const TEREDO_CLIENT_MASK = 0xffff;

/**
 * The IPv4 addresses an IPv6 address carries, by the form that carries them;
 * undefined when it carries none; `local` for a network-specific NAT64 prefix
 * (64:ff9b:1::/48), whose translator is inside someone's network.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | 'local' | undefined {
  const p = address.parts;
  const v4 = (high: number, low: number) =>
    new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  // IPv4-compatible ::a.b.c.d (::/96, deprecated; ::1 and :: included): ipaddr.js calls them unicast.
  if (p.slice(0, 6).every((part) => part === 0)) return [v4(p[6], p[7])];
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d (IPv4-translated)
      return [v4(p[6], p[7])];
    case 'rfc6052': // 64:ff9b::a.b.c.d (NAT64 well-known prefix); 64:ff9b:1::/48 is local
      return p[1] === 0xff9b && p.slice(2, 6).every((part) => part === 0)
        ? [v4(p[6], p[7])]
        : 'local';
    case '6to4': // 2002:AABB:CCDD::/48
      return [v4(p[1], p[2])];
    case 'teredo': // 2001:0:server:server:flags:port:~client:~client
      return [v4(p[2], p[3]), v4(p[6] ^ TEREDO_CLIENT_MASK, p[7] ^ TEREDO_CLIENT_MASK)];
    default:
      return undefined;
  }
}

/** The host of a URL as a connection names it: IPv6 literals without brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Why an outbound (webhook or feed) URL is refused (a reason of the error catalogue), or undefined. */
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

/**
 * Why a request to this URL may not be made now (checked before every
 * connection, also after a redirect): `scheme` (neither http nor https),
 * `http` (plain http:// while not allowed), `private` (an internal address
 * literal); undefined when it may. Names are checked by pinnedLookup().
 */
export function requestProblem(
  url: URL,
  policy: TargetPolicy,
): 'scheme' | 'http' | 'private' | undefined {
  if (url.protocol === 'http:' && !policy.allowHttp) return 'http';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'scheme';
  const host = hostOf(url);
  if (!policy.allowPrivateTargets && isIP(host) !== 0 && !isPublicAddress(host)) return 'private';
  return undefined;
}

/** The request option that pins the checked address (none while private targets are allowed). */
export function pinnedLookup(policy: TargetPolicy): { lookup?: typeof safeLookup } {
  return policy.allowPrivateTargets ? {} : { lookup: safeLookup };
}

/**
 * Why `raw` may not be a target (its scheme, credentials, or an internal
 * address its name resolves to), or undefined: the check a webhook endpoint
 * and an import URL both pass when they are registered.
 */
export async function targetProblem(
  raw: string,
  policy: TargetPolicy,
): Promise<string | undefined> {
  return (
    urlProblem(raw, policy) ??
    ((await resolvesToPrivate(raw, policy)) ? 'privateTarget' : undefined)
  );
}
