import { plainToInstance } from 'class-transformer';
import { validate, ValidationError } from 'class-validator';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { toApiError } from '../common/validation/api-validation.pipe';
import { parseId } from '../common/validation/input-parsing';
import type { ContentEntity, ContentKind, ContentTranslation, ContentWrite } from './content-kind';

/*
 * Venue and organizer references inside an event body (docs/api.md §6): an ID,
 * `{id}`, or an inline object that is reused when it matches an existing
 * record, else created in the event's transaction (ContentService.resolveInline).
 */

/** `0`, `""`, `[]` and null unlink (docs/api.md §6). */
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

/**
 * An existing record an inline object names: not trashed, the same name (any
 * case, any language) and matching `inline.matchOn` columns.
 */
export async function findReusable<E extends ContentEntity<T>, T extends ContentTranslation>(
  manager: EntityManager,
  kind: ContentKind<E, T, unknown, unknown>,
  write: ContentWrite<E>,
): Promise<number | undefined> {
  const qb = manager
    .createQueryBuilder(kind.entity, 'p')
    .innerJoin(kind.translation, 't', `t.${kind.ownerKey} = p.id`)
    .select('p.id', 'id')
    .where('t.nameKey = :nameKey', { nameKey: (write.texts.title ?? '').toLowerCase() })
    .andWhere('p.status != :trash', { trash: 'trash' });
  kind.inline.matchOn.forEach((column, i) => {
    const value = write.columns[column];
    qb.andWhere(`LOWER(COALESCE(p.${column}, '')) = :match${i}`, {
      [`match${i}`]: typeof value === 'string' ? value.toLowerCase() : '',
    });
  });
  const row = await qb.orderBy('p.id', 'ASC').limit(1).getRawOne<{ id: number | string }>();
  return row ? Number(row.id) : undefined;
}

/** Validates like the global pipe does, naming failures `<prefix>.<field>`. */
export async function validateInline<D extends object>(
  dto: new () => D,
  value: Record<string, unknown>,
  prefix: string,
): Promise<D> {
  const instance = plainToInstance(dto, value);
  const errors = await validate(instance, {
    whitelist: true,
    forbidUnknownValues: false,
    stopAtFirstError: false,
    validationError: { target: true, value: false },
  });
  if (errors.length > 0) {
    const wrapper = Object.assign(new ValidationError(), { property: prefix, children: errors });
    throw toApiError([wrapper]);
  }
  return instance;
}
