import { CalendarSplitter, type VeventBlock } from './ical-blocks';
import {
  DEFAULT_IMPORT_LIMITS,
  type ImportItem,
  type ImportLimits,
  type ImportParseOptions,
  type ImportParseResult,
  type ImportRefusal,
  type SkippedVevent,
} from './import-item';
import { FeedZones, ianaZoneOf, icalLibrary, instantOf, wallAt } from './import-zones';
import { hashOf, SkipProblem, veventItem } from './vevent-item';
import type { DateContext } from './vevent-dates';

/*
 * text/calendar → import items and a report of what was skipped (docs/api.md
 * "Imports (draft: parsing rules)"). Fed chunk by chunk (a fetch streams into
 * it) or given a whole body. Never throws for anything a feed holds: a feed
 * over the limits is refused as a whole, a VEVENT that cannot be read is
 * skipped with its reason, the others are taken.
 */
export class IcalImportParser {
  private readonly limits: ImportLimits;
  private readonly splitter: CalendarSplitter;
  private readonly decoder = new TextDecoder('utf-8');
  private readonly zones = new FeedZones();
  private context: DateContext | undefined;
  private readonly read = new ReadVevents();
  /** VEVENTs skipped for an unknown TZID, read again should a later VTIMEZONE name it. */
  private readonly unknownZone: VeventBlock[] = [];
  private bytes = 0;
  private tooLarge = false;

  constructor(private readonly options: ImportParseOptions) {
    this.limits = { ...DEFAULT_IMPORT_LIMITS, ...options.limits };
    this.splitter = new CalendarSplitter(this.limits.maxEvents, this.limits.maxLineChars, {
      timezone: (text) => this.zones.add(text),
      vevent: (block) => this.vevent(block),
    });
  }

  /** Feeds the next part of the body; past `maxBytes` the rest is only counted. */
  push(chunk: Buffer | Uint8Array | string): void {
    const size = typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    this.bytes += size;
    if (this.tooLarge) return;
    if (this.bytes > this.limits.maxBytes) {
      this.tooLarge = true;
      return;
    }
    this.splitter.push(
      typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true }),
    );
  }

  /** Whether the body already passed `maxBytes` (a fetch may stop reading). */
  get refusedForSize(): boolean {
    return this.tooLarge;
  }

  finish(): ImportParseResult {
    if (this.tooLarge) {
      return refusal({ reason: 'too_large', limit: this.limits.maxBytes, found: this.bytes });
    }
    this.splitter.push(this.decoder.decode());
    const blocks = this.splitter.end();
    if (!blocks.isCalendar) {
      return refusal({ reason: 'not_icalendar', limit: null, found: this.bytes });
    }
    if (blocks.eventCount > this.limits.maxEvents) {
      return refusal({
        reason: 'too_many_events',
        limit: this.limits.maxEvents,
        found: blocks.eventCount,
      });
    }
    if (this.zones.grewSinceUnknown) {
      for (const block of this.unknownZone) this.read.replace(block, this.contextNow());
    }
    const calendarName = blocks.calendarProperties.get('X-WR-CALNAME')?.trim().slice(0, 200);
    return {
      ...this.read.result(),
      refused: null,
      calendarName: calendarName ? unescapeName(calendarName) : null,
    };
  }

  private vevent(block: VeventBlock): void {
    const outcome = this.read.add(block, this.contextNow());
    if (outcome === 'unknown_timezone') this.unknownZone.push(block);
  }

  /** The dates' context, fixed at the first VEVENT (the calendar's properties come before it). */
  private contextNow(): DateContext {
    if (!this.context) {
      const feedZone = this.splitter.calendarProperties.get('X-WR-TIMEZONE');
      this.context = {
        zones: this.zones,
        floatingZone:
          (feedZone && ianaZoneOf(feedZone)) || ianaZoneOf(this.options.defaultZone) || 'UTC',
      };
    }
    return this.context;
  }
}

/** The items and skipped VEVENTs read so far, by VEVENT position. */
class ReadVevents {
  private readonly items = new Map<number, ImportItem>();
  private readonly skipped = new Map<number, SkippedVevent>();

  add(block: VeventBlock, context: DateContext): SkippedVevent['reason'] | 'item' {
    const read = readBlock(block, context);
    if ('reason' in read) {
      this.skipped.set(block.index, read);
      return read.reason;
    }
    this.items.set(block.index, read);
    return 'item';
  }

  /** Reads a skipped VEVENT again. */
  replace(block: VeventBlock, context: DateContext): void {
    this.skipped.delete(block.index);
    this.add(block, context);
  }

  result(): Pick<ImportParseResult, 'items' | 'skipped'> {
    const skipped = [...this.skipped.values()];
    const kept = withoutDuplicates(this.items, skipped);
    return { items: inSeriesZones(kept), skipped: skipped.sort((a, b) => a.index - b.index) };
  }
}

/** Parses a whole body. */
export function parseIcalendar(
  body: string | Buffer,
  options: ImportParseOptions,
): ImportParseResult {
  const parser = new IcalImportParser(options);
  parser.push(body);
  return parser.finish();
}

/** Parses a body as it streams in; stops reading once it is over `maxBytes`. */
export async function parseIcalendarStream(
  chunks: AsyncIterable<Buffer | Uint8Array | string>,
  options: ImportParseOptions,
): Promise<ImportParseResult> {
  const parser = new IcalImportParser(options);
  for await (const chunk of chunks) {
    parser.push(chunk);
    if (parser.refusedForSize) break;
  }
  return parser.finish();
}

function refusal(refused: ImportRefusal): ImportParseResult {
  return { items: [], skipped: [], refused, calendarName: null };
}

function readBlock(block: VeventBlock, context: DateContext): ImportItem | SkippedVevent {
  const skip = (reason: SkippedVevent['reason'], detail: string, uid: string | null) => ({
    index: block.index,
    uid,
    reason,
    detail: detail.slice(0, 200),
  });
  if (block.text === null) {
    return skip('property_too_long', 'a property is longer than the limit', block.uid);
  }
  const ICAL = icalLibrary();
  let component: InstanceType<typeof ICAL.Component>;
  try {
    component = new ICAL.Component(ICAL.parse(block.text));
  } catch (error) {
    return skip('malformed', (error as Error).message, block.uid);
  }
  try {
    return veventItem(component, context);
  } catch (error) {
    const uid = block.uid;
    if (error instanceof SkipProblem) return skip(error.reason, error.message, uid);
    return skip('malformed', (error as Error).message ?? 'unreadable', uid);
  }
}

/**
 * One item per UID and RECURRENCE-ID: the highest SEQUENCE, then the latest
 * LAST-MODIFIED, then the later in the feed; the others are skipped as duplicates.
 */
function withoutDuplicates(items: Map<number, ImportItem>, skipped: SkippedVevent[]): ImportItem[] {
  const chosen = new Map<string, [number, ImportItem]>();
  for (const [index, item] of [...items].sort(([a], [b]) => a - b)) {
    const instance = item.recurrenceId;
    const id = `${item.uid}\n${instance ? instantOf(instance.local, instance.timezone) : ''}`;
    const other = chosen.get(id);
    if (!other) {
      chosen.set(id, [index, item]);
      continue;
    }
    const [, otherItem] = other;
    const newer =
      item.sequence !== otherItem.sequence
        ? item.sequence > otherItem.sequence
        : (item.lastModified ?? '') >= (otherItem.lastModified ?? '');
    const [keep, drop]: Array<[number, ImportItem]> = newer
      ? [[index, item], other]
      : [other, [index, item]];
    chosen.set(id, keep);
    skipped.push({
      index: drop[0],
      uid: drop[1].uid,
      reason: 'duplicate',
      detail: 'another VEVENT with this UID and RECURRENCE-ID is newer',
    });
  }
  return [...chosen.values()].sort(([a], [b]) => a - b).map(([, item]) => item);
}

/**
 * A detached instance's RECURRENCE-ID, when its series is in the feed, as the
 * wall-clock time in the series' zone (the service names occurrences by their
 * date there); all-day series: the date.
 */
function inSeriesZones(items: ImportItem[]): ImportItem[] {
  const series = new Map<string, ImportItem>();
  for (const item of items) if (!item.recurrenceId) series.set(item.uid, item);
  return items.map((item) => {
    const parent = item.recurrenceId ? series.get(item.uid) : undefined;
    if (!item.recurrenceId || !parent) return item;
    const { local, timezone } = item.recurrenceId;
    const zone = parent.start.timezone;
    if (timezone === zone) return item;
    const moved = parent.allDay
      ? `${local.slice(0, 10)} 00:00:00`
      : wallAt(instantOf(local, timezone), zone);
    const next = { ...item, recurrenceId: { local: moved, timezone: zone } };
    return { ...next, hash: hashOf(next) };
  });
}

/** X-WR-CALNAME is TEXT: its escapes, read without a regular expression. */
function unescapeName(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i += 1) {
    const c = value[i];
    if (c !== '\\' || i + 1 >= value.length) {
      out += c;
      continue;
    }
    i += 1;
    out += value[i] === 'n' || value[i] === 'N' ? ' ' : value[i];
  }
  return out;
}
