/*
 * Cuts an iCalendar body into its VEVENT and VTIMEZONE components, fed chunk
 * by chunk, and hands each over as soon as it is complete, so each VEVENT is
 * parsed (by ical.js) on its own: one malformed VEVENT costs that VEVENT,
 * never the feed, and neither the feed's text nor a parse tree of it is held. Only the lines that open and close components are looked
 * at here (RFC 5545 §3.4, §3.6); everything inside goes to ical.js as written.
 * One pass over the text, no regular expressions over it.
 */

/** A VEVENT as written, or why its text was not kept. */
export interface VeventBlock {
  /** Position among the feed's VEVENTs, from 1. */
  index: number;
  /** The component's lines (CRLF), or null when `tooLong`. */
  text: string | null;
  /** A content line longer than the limit: the text was dropped. */
  tooLong: boolean;
  /** The `UID:` line's value (before any fold, at most 255 characters), kept also when the text is not. */
  uid: string | null;
}

export interface CalendarBlocks {
  /** Whether a BEGIN:VCALENDAR was seen. */
  isCalendar: boolean;
  /** VEVENTs seen in all (may exceed `maxEvents`; only the first `maxEvents` are handed over). */
  eventCount: number;
  /** Calendar properties the parser reads (unfolded values): X-WR-TIMEZONE, X-WR-CALNAME. */
  calendarProperties: Map<string, string>;
}

const KEPT_CALENDAR_PROPERTIES = ['X-WR-TIMEZONE', 'X-WR-CALNAME'];
/** VCALENDAR > VEVENT > VALARM is 3; a deeper nesting is no calendar app's. */
const MAX_DEPTH = 8;

type Collecting = {
  kind: 'VEVENT' | 'VTIMEZONE';
  depth: number;
  lines: string[];
  tooLong: boolean;
  uid: string | null;
};

export class CalendarSplitter {
  private readonly result: CalendarBlocks = {
    isCalendar: false,
    eventCount: 0,
    calendarProperties: new Map(),
  };
  private rest = '';
  private first = true;
  private depth = 0;
  private collecting: Collecting | null = null;
  /** The logical (unfolded) line being read: its length and, at calendar level, its text. */
  private lineLength = 0;
  private calendarLine: string | null = null;

  constructor(
    private readonly maxEvents: number,
    private readonly maxLineChars: number,
    private readonly handlers: {
      /** A complete VTIMEZONE, as written. */
      timezone(text: string): void;
      /** A complete VEVENT (or one cut off by the end of the body). */
      vevent(block: VeventBlock): void;
    },
  ) {}

  /** Calendar properties read so far (they come before the components, RFC 5545 §3.6). */
  get calendarProperties(): ReadonlyMap<string, string> {
    this.finishLogicalLine();
    return this.result.calendarProperties;
  }

  /** Feeds decoded text; lines may be cut anywhere between chunks. */
  push(chunk: string): void {
    let text = this.rest + chunk;
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      this.line(text.slice(start, end > start && text[end - 1] === '\r' ? end - 1 : end));
      start = end + 1;
    }
    this.rest = text.slice(start);
    // A line longer than the limit is never kept whole: its start is judged as it comes.
    if (this.rest.length > this.maxLineChars + 2) {
      this.line(this.rest);
      this.rest = ' ';
    }
  }

  /** The blocks, once the whole body was fed. */
  end(): CalendarBlocks {
    if (this.rest !== '') this.line(this.rest.replace(/\r$/, ''));
    this.rest = '';
    this.finishLogicalLine();
    // A VEVENT cut off by the end of the body: ical.js reports it as malformed.
    if (this.collecting) this.close(this.collecting);
    return this.result;
  }

  private line(line: string): void {
    if (line.length > 0 && (line[0] === ' ' || line[0] === '\t')) {
      this.continuation(line);
      return;
    }
    this.finishLogicalLine();
    this.lineLength = line.length;
    const boundary = componentBoundary(line);
    if (boundary) {
      this.boundary(boundary.begin, boundary.name, line);
      return;
    }
    if (this.collecting) {
      this.keep(line);
    } else if (this.depth === 1) {
      this.calendarLine = line.length <= this.maxLineChars ? line : null;
    }
  }

  private continuation(line: string): void {
    this.lineLength += line.length - 1;
    if (this.collecting) {
      this.keep(line);
    } else if (this.calendarLine !== null) {
      this.calendarLine =
        this.lineLength <= this.maxLineChars ? this.calendarLine + line.slice(1) : null;
    }
  }

  private keep(line: string): void {
    const block = this.collecting as Collecting;
    // The VEVENT's own UID, not a VALARM's inside it.
    const own = this.depth === block.depth;
    if (own && block.uid === null && line.slice(0, 4).toUpperCase() === 'UID:') {
      block.uid = line.slice(4, 4 + 255).trim() || null;
    }
    if (block.tooLong) return;
    if (this.lineLength > this.maxLineChars) {
      block.tooLong = true;
      block.lines = [];
      return;
    }
    block.lines.push(line);
  }

  private finishLogicalLine(): void {
    const line = this.calendarLine;
    this.calendarLine = null;
    if (line === null) return;
    const colon = line.indexOf(':');
    if (colon < 0) return;
    const name = line.slice(0, colon).split(';')[0].toUpperCase();
    if (KEPT_CALENDAR_PROPERTIES.includes(name) && !this.result.calendarProperties.has(name)) {
      this.result.calendarProperties.set(name, line.slice(colon + 1));
    }
  }

  private boundary(begin: boolean, name: string, line: string): void {
    const block = this.collecting;
    if (begin) {
      this.depth += 1;
      if (this.depth === 1 && name === 'VCALENDAR') this.result.isCalendar = true;
      if (block) {
        this.keep(line);
      } else if (this.depth === 2 && (name === 'VEVENT' || name === 'VTIMEZONE')) {
        this.open(name, line);
      }
      // Too deep to be a calendar app's: the rest of this component is not looked into.
      if (this.depth > MAX_DEPTH) this.depth = MAX_DEPTH;
      return;
    }
    if (block) {
      this.keep(line);
      // Closed by its own END even when a component inside it was never closed.
      if (name === block.kind) {
        this.close(block);
        this.depth = block.depth;
      }
    }
    this.depth = Math.max(0, this.depth - 1);
  }

  private open(kind: 'VEVENT' | 'VTIMEZONE', line: string): void {
    if (kind === 'VEVENT') {
      this.result.eventCount += 1;
      // Past the limit VEVENTs are only counted.
      if (this.result.eventCount > this.maxEvents) return;
    }
    this.collecting = { kind, depth: this.depth, lines: [line], tooLong: false, uid: null };
  }

  private close(block: Collecting): void {
    this.collecting = null;
    const text = block.tooLong ? null : `${block.lines.join('\r\n')}\r\n`;
    if (block.kind === 'VTIMEZONE') {
      if (text !== null) this.handlers.timezone(text);
      return;
    }
    const { tooLong, uid } = block;
    this.handlers.vevent({ index: this.result.eventCount, text, tooLong, uid });
  }
}

/** `BEGIN:NAME` / `END:NAME` (names case-insensitive, RFC 5545 §2), else undefined. */
function componentBoundary(line: string): { begin: boolean; name: string } | undefined {
  const head = line.slice(0, 6).toUpperCase();
  if (head === 'BEGIN:') return { begin: true, name: line.slice(6).trim().toUpperCase() };
  if (head.startsWith('END:')) return { begin: false, name: line.slice(4).trim().toUpperCase() };
  return undefined;
}
