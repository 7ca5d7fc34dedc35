import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DataVersionService } from '../common/cache/data-version.service';
import { VersionStampedLru } from '../common/cache/version-stamped-lru';
import { CacheStats, signals } from '../metrics/signals';
import { ApiError } from '../common/errors/api-error';
import type { RequestContext } from '../common/http/request-context';
import { utcWire } from '../common/time/dates';
import { committedRead } from '../database/write-transaction';
import { RecordReaders } from '../common/records/record-readers';
import { LinkedRecordCache } from '../events/event-records.service';
import { CursorCodec } from './change-cursor';
import { ChangeTracker, CommittedChange } from './change-tracker';
import { FeedEventCache } from './feed-event-cache';
import { FeedReadAhead } from './feed-read-ahead';
import { CHANGE_COLLECTIONS, ChangeCollection, ChangeKind, kindOfCollection } from './change-kinds';
import type { ChangeEntryDto, ChangesPageDto } from './dto/changes-page.dto';
import { CHANGES_DEFAULT_PER_PAGE, ChangesQueryDto } from './dto/changes-query.dto';

interface ChangeRow {
  kind: ChangeKind;
  id: number;
  seq: number;
  deleted: boolean;
  changedAt: number;
}

interface FeedRead {
  /** The sequence's value in the same snapshot: every change up to it had committed. */
  head: number;
  /** Tombstones up to this sequence number were purged (retention). */
  purged: number;
  rows: ChangeRow[];
}

type ChangeRecord = NonNullable<ChangeEntryDto['record']>;

/** The kinds whose records the feed's linked-record cache holds, and how it names them. */
const LINKED_KINDS = {
  venue: 'venue',
  organizer: 'organizer',
  category: 'term',
  tag: 'term',
} as const;
/** Changed linked records read to carry the cache over a head move; beyond it, it starts over. */
const LINKED_CHANGES_MAX = 1_000;

/** Linked records per kind kept for feed reads: all venues, organizers and terms of large data sets. */
const LINKED_MAX_PER_KIND = 20_000;
/** As VersionedCacheService: bounds staleness should a write ever bypass the change tracking. */
const LINKED_MAX_AGE_MS = 60_000;
const LINKED_MAX_KEYS = 16;

/** Answers read ahead at a time, of all clients together (each up to 1,000 records). */
const READ_AHEAD_PAGES = 4;
/** Empty answers kept for polls repeated while nothing is written (~200 bytes each). */
const CAUGHT_UP_MAX = 1_000;

/** Event records kept for anonymous polls, of all languages and hosts together (~11 KB each). */
const EVENT_RECORDS_MAX = 2_000;
/** The languages and hosts, most recently polled first, whose changed events are read ahead. */
const WARM_SCOPES = 4;
/** Changed events read ahead for the next polls at a time (more wait for the next batch). */
const WARM_BATCH = 1_000;
/** How long changed events are gathered before they are read ahead (see warm). */
const WARM_DELAY_MS = 50;

/** The feed's records shared by the reads of one language and host (see linkedAt). */
interface LinkedEntry {
  language: RequestContext['language'];
  apiUrl: string;
  head: number;
  since: number;
  /** When an anonymous client last read the feed in this language and host. */
  polledAt: number;
  cache: LinkedRecordCache;
  /** Its records' scope in the event record cache: a new entry starts with none. */
  scope: string;
}

/**
 * The changes feed (docs/api.md §12). A page is the changes after the cursor's
 * position, in sequence (= commit) order, read in ONE statement together
 * with the sequence's head and the retention watermark, so all three come
 * from one snapshot. Each change is then shown to the caller as the single
 * read would: the records of a page are read per kind in one batch each.
 */
@Injectable()
export class ChangesService implements OnModuleInit {
  private codec?: Promise<CursorCodec>;
  /** Per language and host: see linkedAt. */
  private readonly linked = new Map<string, LinkedEntry>();

  private readonly readAhead = new FeedReadAhead<ChangesPageDto>(READ_AHEAD_PAGES);
  /**
   * The last empty answer per request (cursor, parameters, caller) with the
   * data version read before it: a client that polls again while nothing
   * was written gets it again without a read (as ReadValidatorCache's 304).
   */
  private readonly caughtUp = new VersionStampedLru<ChangesPageDto>(
    CAUGHT_UP_MAX,
    Date.now,
    new CacheStats('feed_caught_up'),
  );
  /** Event records for anonymous polls, per LinkedEntry scope; unused with read replicas. */
  private readonly eventRecords = new FeedEventCache<object>(EVENT_RECORDS_MAX);
  /** Changed events waiting to be read for the next polls (warm), and whether a batch runs. */
  private readonly toWarm = new Map<number, number>();
  private warming = false;
  /** Entries made so far: each new one is a new scope of event records. */
  private entriesMade = 0;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly readers: RecordReaders,
    private readonly versions: DataVersionService,
    private readonly tracker: ChangeTracker,
  ) {}

  onModuleInit(): void {
    // With read replicas a record read for a change may predate it (lag): it is not kept.
    if (!this.hasReadReplicas()) this.tracker.onCommitted((changes) => this.warm(changes));
  }

  /**
   * One answer of the feed: the same empty one again when the client polls
   * while nothing was written; read ahead by the previous answer of the
   * same sync when nothing was written since (FeedReadAhead), else read
   * now; an answer with more to come starts reading the next one.
   */
  async page(query: ChangesQueryDto, ctx: RequestContext): Promise<ChangesPageDto> {
    const version = await this.versions.current(ctx);
    const key = readAheadKey(query, ctx);
    const caughtUp = this.caughtUp.get(key, version);
    if (caughtUp) {
      // Still a poll: its language and host keep having their changes read ahead (warm).
      if (!ctx.user) this.touchPolled(ctx);
      if (query.since !== undefined) signals.feedPoll(0);
      return caughtUp;
    }
    const page = (await this.readAhead.take(key, version)) ?? (await this.read(query, ctx));
    if (query.since !== undefined) signals.feedPoll(cursorAgeSeconds(page));
    if (page.changes.length === 0 && !page.has_more) this.caughtUp.set(key, page, version);
    if (page.has_more) {
      const next = { ...query, since: page.next_cursor };
      this.readAhead.start(readAheadKey(next, ctx), version, () => this.read(next, ctx));
    }
    return page;
  }

  private touchPolled(ctx: RequestContext): void {
    const entry = this.linked.get(`${ctx.language}:${ctx.apiUrl}`);
    if (entry) entry.polledAt = Date.now();
  }

  private async read(query: ChangesQueryDto, ctx: RequestContext): Promise<ChangesPageDto> {
    const codec = await this.cursorCodec();
    const from = query.since === undefined ? undefined : codec.decode(query.since);
    if (query.since !== undefined && !from) throw ApiError.invalid('since', 'notOurCursor');
    const { kinds, perPage } = feedRequest(query);
    const position = from?.seq ?? 0;
    const read = await this.readChanges(position, kinds, perPage + 1);
    // Tombstones after the cursor were purged: it could miss a deletion.
    if (from && read.purged > Math.max(from.seq, from.initial ?? 0)) {
      throw new ApiError('rest_sync_cursor_expired');
    }
    // A first sync leaves out deletions of records the client cannot have (at or below `initial`).
    const initial = from ? from.initial : read.head;
    const hasMore = read.rows.length > perPage;
    const rows = read.rows.slice(0, perPage);
    // With every kind and no more rows, the page holds every change after `position` up to the head.
    const whole = !hasMore && kinds.length === CHANGE_COLLECTIONS.length;
    const linked = await this.linkedAt(
      read.head,
      ctx,
      whole ? { after: position, rows } : undefined,
    );
    if (!ctx.user) this.touchPolled(ctx);
    // Polls of anonymous clients that caught up; the pages of a sync are read once each.
    const kept = ctx.user || hasMore || this.hasReadReplicas() ? undefined : linked.scope;
    const records = await this.readableRecords(rows, ctx, linked.cache, kept);
    const changes: ChangeEntryDto[] = [];
    for (const { kind, id, seq, changedAt } of rows) {
      const record = records.get(kind)?.get(id);
      if (record)
        changes.push({ kind, id, type: 'upsert', changed_utc: utcWire(changedAt), record });
      else if (initial === undefined || seq > initial)
        changes.push({ kind, id, type: 'delete', changed_utc: utcWire(changedAt) });
    }
    // Without more rows, every change of these kinds up to the head was given.
    const next = hasMore ? rows[rows.length - 1].seq : Math.max(position, read.head);
    return { changes, next_cursor: codec.encode({ seq: next, initial }), has_more: hasMore };
  }

  /**
   * One statement: the state row, then the next changes in sequence order,
   * each an index range that stops after `limit` rows (`seq` for all kinds,
   * `(kind, seq)` per kind for a subset, merged here).
   */
  private async readChanges(after: number, kinds: ChangeKind[], limit: number): Promise<FeedRead> {
    const page = (kind: boolean, i: number) =>
      'SELECT * FROM (SELECT seq, NULL AS head, NULL AS purged, kind, record_id, deleted, changed_at ' +
      `FROM changes WHERE seq > ?${kind ? ' AND kind = ?' : ''} ORDER BY seq LIMIT ?) p${i}`;
    const all = kinds.length === CHANGE_COLLECTIONS.length;
    const members = all ? [page(false, 0)] : kinds.map((_, i) => page(true, i));
    const sql = [
      'SELECT -1 AS seq, seq AS head, purged_seq AS purged, NULL AS kind, NULL AS record_id, ' +
        'NULL AS deleted, NULL AS changed_at FROM change_state WHERE id = 1',
      ...members,
    ].join(' UNION ALL ');
    const params = all ? [after, limit] : kinds.flatMap((kind) => [after, kind, limit]);
    // Anonymous reads may go to a replica: one statement keeps the answer consistent there too.
    const result = await this.query(sql, params);
    const state = result.find((row) => Number(row.seq) === -1);
    if (!state) throw new Error('change_state has no row');
    return {
      head: Number(state.head),
      purged: Number(state.purged),
      rows: result
        .filter((row) => row !== state)
        .map((row) => ({
          kind: row.kind as ChangeKind,
          id: Number(row.record_id),
          seq: Number(row.seq),
          deleted: Number(row.deleted) === 1,
          changedAt: Number(row.changed_at),
        }))
        .sort((a, b) => a.seq - b.seq)
        .slice(0, limit),
    };
  }

  /**
   * The records of a page the caller may read by ID, per kind, one batch per
   * kind (RecordReaders), all at once; venues, organizers and terms (their
   * own and those events embed) from `linked` where it has them.
   */
  private async readableRecords(
    rows: ChangeRow[],
    ctx: RequestContext,
    linked?: LinkedRecordCache,
    /** The scope of the event records kept for this anonymous poll (FeedEventCache). */
    keptScope?: string,
  ): Promise<Map<ChangeKind, Map<number, ChangeRecord>>> {
    const ids = RecordReaders.idsByKind(rows.filter((row) => !row.deleted));
    const eventRows = rows.filter((row) => row.kind === 'event' && !row.deleted);
    return (await this.readers.readAll(ids, (reader, kindIds, kinds) => {
      const read = (some: number[]) => reader.feed(some, ctx, linked);
      return kinds.includes('event') && keptScope !== undefined
        ? this.eventRecords.recordsOf(keptScope, eventRows, read)
        : read(kindIds);
    })) as Map<ChangeKind, Map<number, ChangeRecord>>;
  }

  /**
   * The venue, organizer and term records shared by the feed reads of one
   * language and host that saw the change sequence at the entry's `head` or
   * below. Exact: every write that changes such a record moves it to a new
   * `seq` in its own transaction, and every entry was read after a snapshot
   * whose head was `head`, so it shows at least every change up to there (a
   * newer state is what a read after the snapshot would show anyway, and its
   * change follows). A read that saw a newer head drops the records changed
   * in between and carries the rest over (LinkedRecordCache.drop also keeps
   * loads that began before it out), and the kept event records that embed
   * them are forgotten (FeedEventCache.invalidate). The shared data version cannot key
   * this: a request reads it before the page, so a page may hold a change
   * that committed (with its bump) after the version the request read
   * (docs/decisions.md). Starts over after
   * MAX_AGE_MS like the versioned caches. `page`: every change after
   * `after` up to `head`, read in the head's snapshot (one row per record):
   * when it covers the entry's head, the changed records are taken from it
   * instead of read again.
   */
  private async linkedAt(
    head: number,
    ctx: RequestContext,
    page?: { after: number; rows: ChangeRow[] },
  ): Promise<LinkedEntry> {
    const key = `${ctx.language}:${ctx.apiUrl}`;
    const entry = this.linked.get(key);
    if (entry && Date.now() - entry.since <= LINKED_MAX_AGE_MS) {
      if (entry.head >= head) return entry;
      const from = entry.head;
      const changed =
        page && page.after <= from
          ? linkedIn(page.rows, from)
          : await this.linkedChanges(from, head);
      // Heads only grow within an entry, so `changed` covers whatever is left of (entry.head, head].
      if (changed && this.linked.get(key) === entry) {
        if (entry.head < head) {
          entry.cache.drop(changed);
          if (changed.length > 0) this.eventRecords.invalidate(embedsAnyOf(changed));
          entry.head = head;
        }
        return entry;
      }
    }
    if (!entry && this.linked.size >= LINKED_MAX_KEYS) this.linked.clear();
    const fresh: LinkedEntry = {
      language: ctx.language,
      apiUrl: ctx.apiUrl,
      head,
      since: Date.now(),
      polledAt: entry?.polledAt ?? 0,
      cache: new LinkedRecordCache(LINKED_MAX_PER_KIND, true),
      // Like the linked records, the event records start over (the old ones age out).
      scope: `${key} ${++this.entriesMade}`,
    };
    this.linked.set(key, fresh);
    return fresh;
  }

  /**
   * After a write committed on this instance: the events it changed are read
   * for each language and host whose feed an anonymous client read in the
   * last minute, as that client's next poll will show them (FeedEventCache),
   * so the poll takes them ready instead of reading them itself. Every
   * change up to the batch's last number has committed (sequence order is
   * commit order), so the entry first moves to that head: venues,
   * organizers and terms the same writes changed (a term's count on a
   * create) are embedded as they are now. Changes are gathered for
   * WARM_DELAY_MS first, so a burst of writes is read in a few batches.
   * Best effort: a poll reads whatever is not there.
   */
  private warm(changes: CommittedChange[]): void {
    for (const change of changes) {
      if (change.kind !== 'event' || change.deleted) continue;
      this.toWarm.set(change.id, Math.max(change.seq, this.toWarm.get(change.id) ?? 0));
    }
    if (this.toWarm.size === 0 || this.warming) return;
    this.warming = true;
    setTimeout(() => void this.warmBatches(), WARM_DELAY_MS).unref();
  }

  private async warmBatches(): Promise<void> {
    try {
      while (this.toWarm.size > 0) {
        const batch = [...this.toWarm].slice(0, WARM_BATCH).map(([id, seq]) => ({ id, seq }));
        for (const { id } of batch) this.toWarm.delete(id);
        const head = Math.max(...batch.map((change) => change.seq));
        const polled = [...this.linked.values()]
          .filter((entry) => Date.now() - entry.polledAt <= LINKED_MAX_AGE_MS)
          .sort((a, b) => b.polledAt - a.polledAt)
          .slice(0, WARM_SCOPES);
        const events = this.readers.of('event');
        for (const { language, apiUrl } of polled) {
          const ctx: RequestContext = { language, apiUrl };
          await this.linkedAt(head, ctx)
            .then((entry) =>
              this.eventRecords.recordsOf(entry.scope, batch, (ids) =>
                events.feed(ids, ctx, entry.cache),
              ),
            )
            .catch(() => undefined);
        }
      }
    } finally {
      this.warming = false;
    }
  }

  /**
   * The venues, organizers and terms changed since `after` (also those changed again past `upTo`), one
   * `(kind, seq)` index range per kind; undefined when there are more than
   * LINKED_CHANGES_MAX of a kind, or when this connection (a replica) has not
   * yet seen `upTo`. Read only after the head moved, so a poll that finds
   * nothing new pays nothing for it.
   */
  private async linkedChanges(
    after: number,
    upTo: number,
  ): Promise<Array<{ kind: 'venue' | 'organizer' | 'term'; id: number }> | undefined> {
    const kinds = Object.keys(LINKED_KINDS) as Array<keyof typeof LINKED_KINDS>;
    const sql = [
      // The state row first: no kind, this connection's head in place of an ID.
      'SELECT NULL AS kind, seq AS record_id FROM change_state WHERE id = 1',
      ...kinds.map(
        (_, i) =>
          // No upper bound: a record changed again after `upTo` has moved its one row past
          // it, and must still be dropped (a few later ones dropped too cost a read only).
          `SELECT * FROM (SELECT kind, record_id FROM changes WHERE kind = ? AND seq > ? ` +
          `ORDER BY seq LIMIT ${LINKED_CHANGES_MAX + 1}) l${i}`,
      ),
    ].join(' UNION ALL ');
    const rows = await this.query(
      sql,
      kinds.flatMap((kind) => [kind, after]),
    );
    const [state, ...changed] = [
      rows.find((row) => row.kind === null),
      ...rows.filter((row) => row.kind !== null),
    ];
    if (!state || Number(state.record_id) < upTo) return undefined;
    const perKind = (kind: string) => changed.filter((row) => row.kind === kind).length;
    if (kinds.some((kind) => perKind(kind) > LINKED_CHANGES_MAX)) return undefined;
    return changed.map((row) => ({
      kind: LINKED_KINDS[row.kind as keyof typeof LINKED_KINDS],
      id: Number(row.record_id),
    }));
  }

  /** A read of committed rows; anonymous reads may go to a replica (one statement is consistent there too). */
  private query(
    sql: string,
    params: unknown[],
  ): Promise<Array<Record<string, string | number | null>>> {
    const mode = this.dataSource.defaultReplicationModeForReads();
    return committedRead(this.dataSource, async () => {
      const runner = this.dataSource.createQueryRunner(mode);
      try {
        return (await runner.query(sql, params)) as Array<Record<string, string | number | null>>;
      } finally {
        await runner.release();
      }
    });
  }

  private hasReadReplicas(): boolean {
    const options = this.dataSource.options as { replication?: unknown };
    return Boolean(options.replication);
  }

  /** The key is made by the migration and never changes: read once. */
  private cursorCodec(): Promise<CursorCodec> {
    this.codec ??= this.dataSource
      .query('SELECT cursor_key FROM change_state WHERE id = 1')
      .then(
        ([row]: Array<{ cursor_key: string }>) =>
          new CursorCodec(Buffer.from(row.cursor_key, 'hex')),
      )
      .catch((error: unknown) => {
        this.codec = undefined;
        throw error;
      });
    return this.codec;
  }
}

/** Everything an answer depends on besides the data: the cursor, the parameters and the caller. */
function readAheadKey(query: ChangesQueryDto, ctx: RequestContext): string {
  const { kinds, perPage } = feedRequest(query);
  const caller = ctx.user ? [ctx.user.id, ctx.user.role] : [];
  return JSON.stringify([query.since, kinds, perPage, ctx.language, ctx.apiUrl, caller]);
}

/** The kinds a request follows (each once, in CHANGE_KINDS order: one answer, one key) and its page size. */
function feedRequest(query: ChangesQueryDto): { kinds: ChangeKind[]; perPage: number } {
  const asked = new Set<ChangeCollection>(query.kinds?.length ? query.kinds : CHANGE_COLLECTIONS);
  return {
    kinds: CHANGE_COLLECTIONS.filter((collection) => asked.has(collection)).map(kindOfCollection),
    perPage: query.per_page ?? CHANGES_DEFAULT_PER_PAGE,
  };
}

/** The venues, organizers and terms among these changes after `after` (see linkedChanges). */
function linkedIn(
  rows: ChangeRow[],
  after: number,
): Array<{ kind: 'venue' | 'organizer' | 'term'; id: number }> {
  return rows.flatMap((row) =>
    row.kind !== 'event' && row.seq > after ? [{ kind: LINKED_KINDS[row.kind], id: row.id }] : [],
  );
}

/** Whether an event record embeds one of these venues, organizers or terms. */
function embedsAnyOf(
  changed: Array<{ kind: 'venue' | 'organizer' | 'term'; id: number }>,
): (record: object) => boolean {
  const keys = new Set(changed.map(({ kind, id }) => `${kind}:${id}`));
  const has = (kind: string, members: unknown) =>
    [members]
      .flat()
      .some((member) => keys.has(`${kind}:${(member as { id?: number } | null)?.id}`));
  return (record) => {
    const event = record as Partial<Record<'venue' | 'organizer' | 'categories' | 'tags', unknown>>;
    return (
      has('venue', event.venue) ||
      has('organizer', event.organizer) ||
      has('term', event.categories) ||
      has('term', event.tags)
    );
  };
}

/** How far behind a poll's cursor was: the age of the oldest change it had not seen (0 when none). */
function cursorAgeSeconds(page: ChangesPageDto): number {
  const first = page.changes[0];
  if (!first) return 0;
  // `YYYY-MM-DD HH:MM:SS` in UTC.
  const changed = Date.parse(`${first.changed_utc.replace(' ', 'T')}Z`);
  return Number.isNaN(changed) ? 0 : Math.max(0, (Date.now() - changed) / 1000);
}
