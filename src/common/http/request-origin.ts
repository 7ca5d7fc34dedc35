import type { Request } from 'express';
import type { TLSSocket } from 'node:tls';

/**
 * `req.protocol`, without asking the `trust proxy` setting when no
 * X-Forwarded-Proto header could change the answer: Express parses the peer's
 * address against the trusted ranges on every read (≈ 1 % of a create's CPU),
 * and without the header it answers the socket's own scheme either way.
 */
export function requestProtocol(req: Request): string {
  if (req.headers['x-forwarded-proto'] !== undefined) return req.protocol;
  return (req.socket as Partial<TLSSocket>).encrypted ? 'https' : 'http';
}

/** `scheme://host` of the request as it reached the service (the Host header, else localhost). */
export function requestOrigin(req: Request): string {
  return `${requestProtocol(req)}://${req.get('host') ?? 'localhost'}`;
}
