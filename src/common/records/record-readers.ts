import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { ChangeKind } from '../../writes/change-kinds';
import { ApiError } from '../errors/api-error';
import type { RequestContext } from '../http/request-context';
import { recordTag } from '../http/record-tag';
import type { LinkedRecordStore } from './linked-record-cache';

/** Records by ID: only those that exist and that the read may show. */
export type RecordsById = Map<number, object>;

/**
 * The rows a write read last for its answer, with those of the records it
 * links (events' WRITTEN_EVENT_ROWS): a reader renders the ones of its kind
 * from there instead of reading them again.
 */
export interface WrittenRows {
  readonly venues: ReadonlyMap<number, object>;
  readonly organizers: ReadonlyMap<number, object>;
  readonly terms: ReadonlyMap<number, object>;
}

/**
 * How the records of a kind are read by ID for a caller: each kind registers
 * one (RecordReaders.register). Every read is one batch, a fixed number of
 * queries whatever the number of IDs. One reader may serve several kinds
 * (categories and tags): `kind` says which one a single read is for.
 */
export interface RecordReader {
  /**
   * As the changes feed shows them to `ctx` (docs/api.md §12): only those
   * the caller may read by ID, trashed ones counting as gone, without
   * JSON-LD. `linked`: the records events embed, kept across reads.
   */
  feed(ids: number[], ctx: RequestContext, linked?: LinkedRecordStore): Promise<RecordsById>;
  /**
   * As their single read with `context=edit` shows them to `ctx`, trashed
   * ones included, read through `manager` (a write's transaction: its
   * uncommitted state), for change messages. `kept`: see WrittenRows.
   */
  edit(
    manager: EntityManager,
    ids: number[],
    ctx: RequestContext,
    kept?: WrittenRows,
  ): Promise<RecordsById>;
  /**
   * What a GET of the record by `ctx` answers now. Throws the GET's ApiError
   * when the caller may not read it (or it is gone).
   */
  get(id: number, ctx: RequestContext, kind: ChangeKind): Promise<object>;
}

/**
 * The one registry of record readers by kind (event, venue, organizer,
 * category, tag). The changes feed, webhook change messages and idempotent
 * answers read records by ID through it, so none of them knows the kinds'
 * services; each kind registers its reader when its module starts.
 */
@Injectable()
export class RecordReaders {
  private readonly readers = new Map<ChangeKind, RecordReader>();

  register(kinds: readonly ChangeKind[], reader: RecordReader): void {
    for (const kind of kinds) {
      if (this.readers.has(kind)) throw new Error(`a record reader for ${kind} is registered`);
      this.readers.set(kind, reader);
    }
  }

  of(kind: ChangeKind): RecordReader {
    const reader = this.readers.get(kind);
    if (!reader) throw new Error(`no record reader for ${kind}`);
    return reader;
  }

  /** The IDs of these records grouped by kind, for readAll. */
  static idsByKind(
    records: Iterable<{ kind: ChangeKind; id: number }>,
  ): Map<ChangeKind, number[]> {
    const ids = new Map<ChangeKind, number[]>();
    for (const { kind, id } of records) {
      const list = ids.get(kind);
      if (list) list.push(id);
      else ids.set(kind, [id]);
    }
    return ids;
  }

  /**
   * The records of these IDs per kind, read by `read`: once per reader, so
   * kinds one reader serves (categories and tags) share a batch, each split
   * into batches of at most `batch` IDs. `sequential`: one read after
   * another (they share a transaction's connection); else all at once.
   */
  async readAll(
    ids: ReadonlyMap<ChangeKind, readonly number[]>,
    read: (reader: RecordReader, ids: number[], kinds: ChangeKind[]) => Promise<RecordsById>,
    options: { sequential?: boolean; batch?: number } = {},
  ): Promise<Map<ChangeKind, RecordsById>> {
    const groups = new Map<RecordReader, { kinds: ChangeKind[]; ids: number[] }>();
    for (const [kind, kindIds] of ids) {
      if (kindIds.length === 0) continue;
      const reader = this.of(kind);
      const group = groups.get(reader) ?? { kinds: [], ids: [] };
      group.kinds.push(kind);
      for (const id of kindIds) group.ids.push(id);
      groups.set(reader, group);
    }
    const batch = options.batch ?? Infinity;
    const readGroup = async (reader: RecordReader, group: { kinds: ChangeKind[]; ids: number[] }) => {
      // One batch: the reader's own map, not a copy (a feed page reads each kind once).
      if (group.ids.length <= batch) {
        return { kinds: group.kinds, records: await read(reader, group.ids, group.kinds) };
      }
      const records: RecordsById = new Map();
      for (let i = 0; i < group.ids.length; i += batch) {
        const slice = group.ids.slice(i, i + batch);
        for (const [id, record] of await read(reader, slice, group.kinds)) records.set(id, record);
      }
      return { kinds: group.kinds, records };
    };
    const entries = [...groups];
    const results: Array<{ kinds: ChangeKind[]; records: RecordsById }> = [];
    if (options.sequential) {
      for (const [reader, group] of entries) results.push(await readGroup(reader, group));
    } else {
      results.push(...(await Promise.all(entries.map(([r, group]) => readGroup(r, group)))));
    }
    const byKind = new Map<ChangeKind, RecordsById>();
    for (const { kinds, records } of results) for (const kind of kinds) byKind.set(kind, records);
    return byKind;
  }

  /**
   * The ETag a GET of the record by `ctx` would carry now (docs/api.md §11,
   * recordTag); undefined when the caller may not read it (or it is gone).
   */
  async tagOf(kind: ChangeKind, id: number, ctx: RequestContext): Promise<string | undefined> {
    try {
      return recordTag(await this.of(kind).get(id, ctx, kind));
    } catch (error) {
      if (error instanceof ApiError) return undefined;
      throw error;
    }
  }
}
