import { nameKeyOf } from '../common/text/name-key';
import { plainToInstance } from 'class-transformer';
import { validate, ValidationError } from 'class-validator';
import type { EntityManager, FindOptionsWhere } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { toApiError } from '../common/validation/api-validation.pipe';
import { parseId } from '../common/validation/input-parsing';
import type { ContentEntity, ContentKind, ContentTranslation, ContentWrite } from './content-kind';
import { ExternalKeyDto } from './dto/external-key.dto';
import { findByExternalKey } from './external-keys';

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
 * case, any language) and matching `inline.matchOn` columns. An object with
 * an `external_id` names none here (findByReference looked its key up).
 */
export async function findReusable<E extends ContentEntity<T>, T extends ContentTranslation>(
  manager: EntityManager,
  kind: ContentKind<E, T, unknown, unknown>,
  write: ContentWrite<E>,
): Promise<number | undefined> {
  // A keyed object was looked up by its key (findByReference): it is new.
  if (write.columns.externalSource) return undefined;
  const qb = manager
    .createQueryBuilder(kind.entity, 'p')
    .innerJoin(kind.translation, 't', `t.${kind.ownerKey} = p.id`)
    .select('p.id', 'id')
    .where('t.nameKey = :nameKey', { nameKey: nameKeyOf(write.texts.title ?? '') })
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

/**
 * A reference by external key (docs/api.md §17): an object with
 * `external_id` names the record holding that key (trashed → 400
 * `<kind>: notFound`). Undefined when the object has no key or no record
 * holds it: it is then an inline object, created with the key.
 */
export async function findByReference<E extends ContentEntity<T>, T extends ContentTranslation>(
  manager: EntityManager,
  kind: ContentKind<E, T, unknown, unknown>,
  value: Record<string, unknown>,
): Promise<number | undefined> {
  if (value.external_id === undefined || value.external_id === null) return undefined;
  const prefix = `${kind.titleWire}.external_id`;
  if (typeof value.external_id !== 'object' || Array.isArray(value.external_id))
    throw ApiError.invalid(prefix, 'isObject');
  const key = await validateInline(
    ExternalKeyDto,
    value.external_id as Record<string, unknown>,
    prefix,
  );
  const id = await findByExternalKey(manager, kind.entity, key);
  if (id === undefined) return undefined;
  const trashed = await manager.exists(kind.entity, {
    where: { id, status: 'trash' } as FindOptionsWhere<E>,
  });
  if (trashed) throw ApiError.invalid(kind.titleWire, 'notFound');
  return id;
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
