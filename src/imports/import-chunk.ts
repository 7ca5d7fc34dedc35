import type { EntityManager } from 'typeorm';
import type { RequestContext } from '../common/http/request-context';
import type { CreateEventDto } from '../events/dto/create-event.dto';
import { Event } from '../events/entities/event.entity';
import { lockEventRow } from '../events/event-store';
import type { EventBulkWrites } from '../events/event-bulk-writes';
import type { EventWrites } from '../events/event-writes.service';
import { Organizer } from '../organizers/entities/organizer.entity';
import { postColumns } from '../posts/post-write';
import { CATEGORIES } from '../terms/taxonomies';
import type { TermLinksService } from '../terms/term-links.service';
import { Venue } from '../venues/entities/venue.entity';
import type { WriteUnit } from '../writes/write-unit';
import { categoryKey, eventInputOf, type ResolvedLinks } from './import-event-input';
import type { ImportItem } from './import-item';
import {
  eventsByKey,
  importHashOf,
  type ImportedEvent,
  linkedByKey,
  occurrenceKey,
  occurrencesOn,
} from './import-lookups';
import type { ImportRunCounts, ImportTarget } from './import-report';

/** What one item came to: a count, or no event to write it to (a detached instance). */
export type ItemOutcome = keyof ImportRunCounts | 'no_occurrence';

/** What a chunk's writes need besides the unit: the event flows, the terms, the context. */
export interface ChunkWriters {
  events: EventWrites;
  bulk: EventBulkWrites;
  terms: TermLinksService;
  ctx: RequestContext;
  siteZone: string;
}

/** What a chunk's reads found: each item's event (if any) and the hash it would store. */
export interface ChunkState {
  existing: Array<ImportedEvent | undefined>;
  hashes: string[];
}

/**
 * The events a chunk's items name, in a handful of queries for the whole
 * chunk: the source's events by UID, then the occurrences its detached
 * instances name. A chunk holds either no detached instances or only those
 * (their series were written by earlier chunks).
 */
export async function readChunk(
  manager: EntityManager,
  target: ImportTarget,
  items: readonly ImportItem[],
): Promise<ChunkState> {
  const byKey = await eventsByKey(
    manager,
    target.source,
    items.map((item) => item.uid),
  );
  const instances = items.filter((item) => item.recurrenceId !== null);
  const occurrences = await occurrencesOn(
    manager,
    instances.flatMap((item) => byKey.get(item.uid)?.id ?? []),
    instances.map((item) => occurrenceDate(item)),
  );
  const existing = items.map((item) => {
    const event = byKey.get(item.uid);
    if (!item.recurrenceId || !event) return event;
    return occurrences.get(occurrenceKey(event.id, occurrenceDate(item)));
  });
  return { existing, hashes: items.map((item) => importHashOf(item, target)) };
}

/**
 * An item's outcome when it needs no write: its event holds its hash, a
 * cancelled item names no event to trash, an instance names no occurrence.
 * Undefined when it must be written.
 */
export function settledOutcome(
  item: ImportItem,
  existing: ImportedEvent | undefined,
  hash: string,
): ItemOutcome | undefined {
  if (item.recurrenceId && !existing) return 'no_occurrence';
  if (existing?.importHash === hash) return 'unchanged';
  if (item.status === 'cancelled' && (!existing || existing.status === 'trash')) return 'unchanged';
  return undefined;
}

/**
 * Writes one chunk of items in the caller's unit of work (read again in it)
 * and returns each item's outcome, in order. An item whose event already
 * holds its hash is not written at all; the new events are created together
 * (EventBulkWrites.createMany), after the chunk's updates and trashes.
 */
export async function writeChunk(
  unit: WriteUnit,
  writers: ChunkWriters,
  target: ImportTarget,
  items: readonly ImportItem[],
): Promise<ItemOutcome[]> {
  const { existing, hashes } = await readChunk(unit.manager, target, items);
  const toWrite = items.filter(
    (item, i) => settledOutcome(item, existing[i], hashes[i]) === undefined,
  );
  const links = toWrite.length > 0 ? await resolveLinks(unit, writers, target, toWrite) : noLinks;
  const outcomes: ItemOutcome[] = [];
  const creates: Array<{ input: CreateEventDto; extra: Partial<Event> }> = [];
  for (const [i, item] of items.entries()) {
    const settled = settledOutcome(item, existing[i], hashes[i]);
    const event = existing[i];
    if (settled) outcomes.push(settled);
    // A cancelled item without an event is settled: one with an event is trashed.
    else if (event)
      outcomes.push(await writeItem(unit, writers, target, item, event, hashes[i], links));
    else {
      creates.push({ input: eventInputOf(item, target, links), extra: { importHash: hashes[i] } });
      outcomes.push('created');
    }
  }
  await writers.bulk.createMany(
    unit,
    creates.map((create) => create.input),
    writers.ctx,
    creates.map((create) => create.extra),
  );
  return outcomes;
}

const noLinks: ResolvedLinks = { venues: new Map(), organizers: new Map(), categories: new Map() };

/** One item that needs a write to its event: cancelled (trash) or updated. */
async function writeItem(
  unit: WriteUnit,
  writers: ChunkWriters,
  target: ImportTarget,
  item: ImportItem,
  existing: ImportedEvent,
  hash: string,
  links: ResolvedLinks,
): Promise<ItemOutcome> {
  const { manager } = unit;
  if (item.status === 'cancelled') {
    // Never created; the event it names is trashed once (an occurrence: as delete-one does).
    await lockEventRow(manager, existing.id);
    await writers.events.trashLocked(unit, existing as Event);
    await manager.update(Event, existing.id, { importHash: hash });
    return 'trashed';
  }
  const input = eventInputOf(item, target, links);
  const { ctx } = writers;
  await lockEventRow(manager, existing.id);
  const post = postColumns(input, ctx, writers.siteZone, false);
  await writers.events.updateLocked(unit, existing.id, input, ctx, post, { importHash: hash });
  return 'updated';
}

/**
 * The venues and organizers the items' keys name and the categories their
 * names name (found by name in any language, or created), one read per kind.
 */
async function resolveLinks(
  unit: WriteUnit,
  writers: ChunkWriters,
  target: ImportTarget,
  items: readonly ImportItem[],
): Promise<ResolvedLinks> {
  const { manager } = unit;
  const venues = await linkedByKey(
    manager,
    Venue,
    target.source,
    items.flatMap((item) => item.venue?.key ?? []),
  );
  const organizers = await linkedByKey(
    manager,
    Organizer,
    target.source,
    items.flatMap((item) => item.organizer?.key ?? []),
  );
  // The first spelling of each key, as the names come in the items.
  const names = new Map<string, string>();
  for (const item of items) {
    for (const name of item.categories) {
      const key = categoryKey(name);
      if (key !== '' && !names.has(key)) names.set(key, name);
    }
  }
  const ids = await writers.terms.findOrCreateManyByName(
    unit,
    CATEGORIES,
    [...names.values()],
    writers.ctx,
  );
  const categories = new Map([...names].map(([key, name]) => [key, ids.get(name) as number]));
  return { venues, organizers, categories };
}

/** The date a detached instance names in its series' zone (the parser read it there). */
function occurrenceDate(item: ImportItem): string {
  return (item.recurrenceId as NonNullable<ImportItem['recurrenceId']>).local.slice(0, 10);
}
