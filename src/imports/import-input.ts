import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { Request } from 'express';
import type { Readable } from 'node:stream';
import { toApiError } from '../common/validation/api-validation.pipe';
import { CreateImportDto, ImportSettingsDto } from './dto/create-import.dto';

/** The media type of an uploaded calendar. */
export const CALENDAR_TYPE = 'text/calendar';

/**
 * What `POST {api}/imports` was sent: an uploaded calendar (its settings in
 * the query, the body unread) or a URL import (its JSON or form body).
 */
export type ImportInput =
  | {
      kind: 'upload';
      settings: ImportSettingsDto;
      body: Readable;
      /** The body's Content-Length, when it declared one. */
      declaredBytes: number | undefined;
    }
  | { kind: 'url'; settings: CreateImportDto };

/** A plain object checked as the global pipe checks DTOs (400 with the parameters' names). */
function validated<T extends object>(type: new () => T, plain: unknown): T {
  const value = plainToInstance(type, plain ?? {}, { enableImplicitConversion: false });
  const errors = validateSync(value, {
    whitelist: true,
    forbidNonWhitelisted: false,
    validationError: { target: true, value: false },
  });
  if (errors.length > 0) throw toApiError(errors);
  return value;
}

/**
 * The import request, by its Content-Type. The global pipe cannot take this
 * route's two shapes (a `text/calendar` body carries its settings in the
 * query), so this decorator checks them the same way. Resolved after the
 * guards, so 401 and 403 come before 400.
 */
export const ImportRequest = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): ImportInput => {
    const req = ctx.switchToHttp().getRequest<Request>();
    if (req.is(CALENDAR_TYPE)) {
      const length = req.headers['content-length'];
      return {
        kind: 'upload',
        settings: validated(ImportSettingsDto, req.query),
        body: req,
        declaredBytes: length === undefined ? undefined : Number(length),
      };
    }
    return { kind: 'url', settings: validated(CreateImportDto, req.body) };
  },
);
