import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../errors/api-error';

/**
 * How deep a parsed body may nest. The API's bodies nest a few levels; the
 * validation that follows walks them recursively, so a 4 kB body of 2,000
 * nested brackets would otherwise overflow the stack (500).
 */
export const MAX_BODY_DEPTH = 64;

/** Whether `value` holds objects or arrays nested deeper than `limit` (iterative: no stack to overflow). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<{ item: unknown; depth: number }> = [{ item: value, depth: 0 }];
  while (pending.length > 0) {
    const { item, depth } = pending.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Object.values(item)) pending.push({ item: child, depth: depth + 1 });
  }
  return false;
}

/** Express middleware after the body parsers: a body nested deeper than MAX_BODY_DEPTH is 400 rest_invalid_json. */
export function limitBodyDepth(req: Request, _res: Response, next: NextFunction): void {
  next(nestsDeeperThan(req.body, MAX_BODY_DEPTH) ? new ApiError('rest_invalid_json') : undefined);
}
