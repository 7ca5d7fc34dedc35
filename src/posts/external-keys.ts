import type { EntityManager, ObjectLiteral } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import type { PostColumns } from '../database/post-columns';

/*
 * External keys (docs/api.md §17): a record's ID in the system it comes
 * from, `{source, id}`, unique per kind and source (the unique index
 * `uq_<table>_external_key` decides).
 */

export interface ExternalKey {
  source: string;
  id: string;
}

type KeyColumns = Pick<PostColumns, 'externalSource' | 'externalId'>;

/** The record's `external_id` field: the key, or null without one. */
export function externalKeyField(row: KeyColumns): ExternalKey | null {
  return row.externalSource !== null && row.externalId !== null
    ? { source: row.externalSource, id: row.externalId }
    : null;
}

/** The columns a write sets from `external_id`: undefined (not sent), null (cleared) or the key. */
export function externalKeyColumns(value: ExternalKey | null | undefined): Partial<KeyColumns> {
  if (value === undefined) return {};
  return value === null
    ? { externalSource: null, externalId: null }
    : { externalSource: value.source, externalId: value.id };
}

/** The ID of the record of this kind with the key, or undefined. */
export async function findByExternalKey(
  manager: EntityManager,
  entity: new () => ObjectLiteral,
  key: ExternalKey,
): Promise<number | undefined> {
  const row = await manager
    .createQueryBuilder(entity, 'p')
    .select('p.id', 'id')
    .where('p.externalSource = :source AND p.externalId = :key', {
      source: key.source,
      key: key.id,
    })
    .getRawOne<{ id: number | string }>();
  return row ? Number(row.id) : undefined;
}

/**
 * Throws 409 `rest_external_id_taken` when another record of the kind holds
 * the key a write sets. Run inside the write's transaction: a write that
 * lost a race for the key hits the unique index, writeTransaction runs it
 * again, and this check then names the winner instead of a unique violation.
 */
export async function assertExternalKeyFree(
  manager: EntityManager,
  entity: new () => ObjectLiteral,
  columns: Partial<KeyColumns>,
  selfId: number | undefined,
): Promise<void> {
  const { externalSource: source, externalId: id } = columns;
  if (!source || !id) return;
  const holder = await findByExternalKey(manager, entity, { source, id });
  if (holder !== undefined && holder !== selfId) {
    throw new ApiError('rest_external_id_taken');
  }
}

/**
 * assertExternalKeyFree for many new records at once: 409
 * `rest_external_id_taken` when a stored record of the kind holds one of the
 * keys or two of them hold the same, as one check after the other's insert
 * would find. One query per source.
 */
export async function assertExternalKeysFree(
  manager: EntityManager,
  entity: new () => ObjectLiteral,
  columns: ReadonlyArray<Partial<KeyColumns>>,
): Promise<void> {
  const bySource = new Map<string, Set<string>>();
  for (const { externalSource: source, externalId: id } of columns) {
    if (!source || !id) continue;
    const ids = bySource.get(source) ?? new Set<string>();
    if (ids.has(id)) throw new ApiError('rest_external_id_taken');
    bySource.set(source, ids.add(id));
  }
  for (const [source, ids] of bySource) {
    const holder = await manager
      .createQueryBuilder(entity, 'p')
      .select('p.id', 'id')
      .where('p.externalSource = :source AND p.externalId IN (:...ids)', {
        source,
        ids: [...ids],
      })
      .limit(1)
      .getRawOne<{ id: number | string }>();
    if (holder) throw new ApiError('rest_external_id_taken');
  }
}
