import { Injectable } from '@nestjs/common';
import type { RequestContext } from '../common/http/request-context';
import { LinkedRecordCache } from '../events/event-records.service';
import { ByteBudget, LINKED_RECORDS_PER_KIND } from '../common/records/linked-record-cache';
import { RecordReaders } from '../common/records/record-readers';
import { ChangeLogReader, ChangeRow, LinkedChange, linkedIn } from './change-log-reader';
import type { CommittedChange } from '../writes/change-tracker';
import type { ChangeEntryDto } from './dto/changes-page.dto';
import { FeedEventCache } from './feed-event-cache';

/** A record as a change entry shows it. */
export type ChangeRecord = NonNullable<ChangeEntryDto['record']>;

/**
 * Their encoded JSON, of all languages and hosts together: venues and
 * organizers are kept as these bytes only (LinkedRecordStore.keepsBytesOnly),
 * so this is about all they take. At 1M events the 10,000 venues and 10,000
 * organizers of one language take 19 MB: a sync reads each once. (Kept as
 * objects, they took about 3.5 times their JSON in the heap.)
 */
export const LINKED_MAX_BYTES = 24 * 1024 * 1024;
/** As VersionedCacheService: bounds staleness should a write ever bypass the change tracking. */
const LINKED_MAX_AGE_MS = 60_000;
const LINKED_MAX_KEYS = 16;

/** Event records kept for anonymous polls, of all languages and hosts together (~11 KB each). */
const EVENT_RECORDS_MAX = 2_000;
/** The languages and hosts, most recently polled first, whose changed events are read ahead. */
const WARM_SCOPES = 4;
/** Changed events read ahead for the next polls at a time (more wait for the next batch). */
const WARM_BATCH = 1_000;
/** How long changed events are gathered before they are read ahead (see warm). */
const WARM_DELAY_MS = 50;

/** The feed's records shared by the reads of one language and host (see linkedAt). */
export interface LinkedEntry {
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
 * The changes feed's record caches (docs/api.md §12): per language and host,
 * the venue, organizer and term records its reads share (linkedAt), and the
 * event records kept for anonymous polls, read ahead after each write (warm).
 */
@Injectable()
export class FeedRecordCaches {
  /** Event records for anonymous polls, per LinkedEntry scope; unused with read replicas. */
  readonly eventRecords = new FeedEventCache<object>(EVENT_RECORDS_MAX);
  /** Per language and host: see linkedAt. */
  private readonly linked = new Map<string, LinkedEntry>();
  /** The bytes all entries' linked records may keep together. */
  readonly linkedBytes = new ByteBudget(LINKED_MAX_BYTES);
  /** Changed events waiting to be read for the next polls (warm), and whether a batch runs. */
  private readonly toWarm = new Map<number, number>();
  private warming = false;
  /** Entries made so far: each new one is a new scope of event records. */
  private entriesMade = 0;

  constructor(
    private readonly readers: RecordReaders,
    private readonly reader: ChangeLogReader,
  ) {}

  touchPolled(ctx: RequestContext): void {
    const entry = this.linked.get(`${ctx.language}:${ctx.apiUrl}`);
    if (entry) entry.polledAt = Date.now();
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
  async linkedAt(
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
          : await this.reader.linkedChanges(from, head);
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
    // Entries replaced, too many, or too old and not polled (warm renews those) give their bytes
    // back: a read still using one keeps no more.
    const now = Date.now();
    const idle = (old: LinkedEntry) =>
      now - old.since > LINKED_MAX_AGE_MS && now - old.polledAt > LINKED_MAX_AGE_MS;
    for (const [other, old] of this.linked) {
      if (other === key || idle(old) || this.linked.size >= LINKED_MAX_KEYS) {
        old.cache.retire();
        this.linked.delete(other);
      }
    }
    const fresh: LinkedEntry = {
      language: ctx.language,
      apiUrl: ctx.apiUrl,
      head,
      since: now,
      polledAt: entry?.polledAt ?? 0,
      cache: new LinkedRecordCache(LINKED_RECORDS_PER_KIND, true, this.linkedBytes, true),
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
  warm(changes: CommittedChange[]): void {
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
}

/** Whether an event record embeds one of these venues, organizers or terms. */
function embedsAnyOf(changed: LinkedChange[]): (record: object) => boolean {
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
