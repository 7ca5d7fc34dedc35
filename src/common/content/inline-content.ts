import { plainToInstance } from 'class-transformer';
import { validate, ValidationError } from 'class-validator';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../errors/api-error';
import type { RequestContext } from '../http/request-context';
import { toApiError } from '../validation/api-validation.pipe';
import { parseId } from '../validation/input-parsing';
import type { ContentEntity, ContentKind, ContentTranslation } from './content-kind';
import type { ContentEnv } from './content-operations';
import { insertContent } from './content-store';
import { assertCanCreate, ContentWrite } from './content-write';

/*
 * Venue and organizer references inside an event body (contract §6): an ID,
 * `{id}`, or an inline object that is reused when it matches an existing
 * record, else created in the event's transaction.
 */

/** `0`, `""`, `[]` and null unlink (contract §6). */
export function isUnlinkValue(value: unknown): boolean {
  return (
    value === null ||
    value === 0 ||
    value === '' ||
    value === '0' ||
    (Array.isArray(value) && value.length === 0)
  );
}

/** One reference: an ID (number, digits, `{id}`) or an inline object; else 400 `<name>`. */
export function parseReference(value: unknown, name: string): number | Record<string, unknown> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    if (!('id' in object)) return object;
    value = object.id;
  }
  const id = parseId(value);
  if (id === undefined) throw ApiError.invalid(name, 'invalid');
  return id;
}

export interface InlineSpec<E, D> {
  /** The create DTO of the kind: inline objects follow the same rules as POST. */
  dto: new () => D;
  /** Error parameter prefix: errors are named `<name>.<field>`. */
  name: string;
  toWrite(dto: D): ContentWrite<E>;
  /**
   * Shared columns that must also match (case-insensitively, empty equal to
   * missing) for an existing record with the same name to be reused.
   */
  matchOn: ReadonlyArray<keyof E & string>;
}

/**
 * The ID for an inline object: an existing record that is not trashed with
 * the same name (any case, any language) and matching `matchOn` columns, or
 * a new one (for callers who may create).
 */
export async function resolveInline<
  E extends ContentEntity<T>,
  T extends ContentTranslation,
  D extends object,
>(
  env: ContentEnv,
  kind: ContentKind<E, T, unknown>,
  spec: InlineSpec<E, D>,
  manager: EntityManager,
  value: Record<string, unknown>,
  ctx: RequestContext,
): Promise<number> {
  const write = spec.toWrite(await validateInline(spec.dto, value, spec.name));
  const existing = await findReusable(manager, kind, write, spec.matchOn);
  if (existing !== undefined) return existing;
  assertCanCreate(ctx.user);
  return insertContent(manager, kind, write, ctx, env.config.siteTimezone);
}

async function findReusable<E extends ContentEntity<T>, T extends ContentTranslation>(
  manager: EntityManager,
  kind: ContentKind<E, T, unknown>,
  write: ContentWrite<E>,
  matchOn: ReadonlyArray<keyof E & string>,
): Promise<number | undefined> {
  const qb = manager
    .createQueryBuilder(kind.entity, 'p')
    .innerJoin(kind.translation, 't', `t.${kind.ownerKey} = p.id`)
    .select('p.id', 'id')
    .where('t.nameKey = :nameKey', { nameKey: (write.texts.name ?? '').toLowerCase() })
    .andWhere('p.status != :trash', { trash: 'trash' });
  matchOn.forEach((column, i) => {
    const value = write.columns[column];
    qb.andWhere(`LOWER(COALESCE(p.${column}, '')) = :match${i}`, {
      [`match${i}`]: typeof value === 'string' ? value.toLowerCase() : '',
    });
  });
  const row = await qb.orderBy('p.id', 'ASC').limit(1).getRawOne<{ id: number | string }>();
  return row ? Number(row.id) : undefined;
}

/** Validates like the global pipe does, naming failures `<prefix>.<field>`. */
async function validateInline<D extends object>(
  dto: new () => D,
  value: Record<string, unknown>,
  prefix: string,
): Promise<D> {
  const instance = plainToInstance(dto, value);
  const errors = await validate(instance, {
    whitelist: true,
    forbidUnknownValues: false,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
  });
  if (errors.length > 0) {
    const wrapper = Object.assign(new ValidationError(), { property: prefix, children: errors });
    throw toApiError([wrapper]);
  }
  return instance;
}
