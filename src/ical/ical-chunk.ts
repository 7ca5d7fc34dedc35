import { headedLine, LINE_OCTETS } from './ical-text';

/** Where a VEVENT's lines go: a string (single events, series) or a feed batch's Buffer. */
export interface LineSink {
  /** One content line from its head (`NAME;PARAM=…`) and value: folded at 75 octets, with its CRLF. */
  line(head: string, value: string): void;
  /** Lines already folded and ended (written once per venue, status, zone). */
  lines(text: string): void;
}

/** Lines appended to a string. */
export class LineText implements LineSink {
  text = '';

  line(head: string, value: string): void {
    this.text += headedLine(head, value);
  }

  lines(text: string): void {
    this.text += text;
  }
}

const CR = 0x0d;
const LF = 0x0a;

/**
 * Text written into one Buffer as it is made: a batch of VEVENTs leaves as
 * one chunk. Appending every VEVENT to one long string made the socket
 * measure and flatten a rope of thousands of pieces at each write (a fifth
 * of the feed's CPU). Content lines are encoded straight into the buffer
 * and folded there, by octets: no line string is made for them at all.
 */
export class TextChunk implements LineSink {
  private buffer: Buffer;
  private length = 0;
  /** Where the lines of a line being folded start, reused (fold offsets). */
  private readonly cuts: number[] = [];

  /** `expectedBytes`: the size to start from (the previous batch's, say); it grows as needed. */
  constructor(expectedBytes = 64 * 1024) {
    this.buffer = Buffer.allocUnsafe(Math.max(1024, expectedBytes));
  }

  append(text: string): void {
    // A UTF-16 code unit never takes more than 3 bytes of UTF-8.
    this.reserve(text.length * 3);
    this.length += this.buffer.write(text, this.length, 'utf8');
  }

  lines(text: string): void {
    this.append(text);
  }

  /**
   * `head:value` and CRLF, folded as foldLine() folds it: a CRLF and a space
   * before the character that would take a physical line past 75 octets.
   * Bytes are grouped into characters by their UTF-8 lead bytes, so a fold
   * never splits one (a lone surrogate is written as the 3 octets of U+FFFD,
   * which is what foldLine counts for it).
   */
  line(head: string, value: string): void {
    const most = (head.length + 1 + value.length) * 3;
    this.reserve(most + Math.ceil(most / (LINE_OCTETS - 1)) * 3 + 2);
    const start = this.length;
    let end = this.writeHead(head, start);
    this.buffer[end++] = 0x3a; // ':'
    end += this.buffer.write(value, end, 'utf8');
    if (end - start > LINE_OCTETS) end = this.fold(start, end);
    this.buffer[end++] = CR;
    this.buffer[end++] = LF;
    this.length = end;
  }

  get byteLength(): number {
    return this.length;
  }

  /** The bytes written (a view of the buffer: append nothing after this). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  /** A line's head (ASCII but for a parameter value) at `at`; where it ends. */
  private writeHead(head: string, at: number): number {
    // Byte by byte: Buffer#write's own cost is more than a short head's copy.
    for (let i = 0; i < head.length; i++) {
      const code = head.charCodeAt(i);
      if (code > 0x7f) return at - i + this.buffer.write(head, at - i, 'utf8');
      this.buffer[at++] = code;
    }
    return at;
  }

  /** Inserts CRLF + space at each fold of the line in [start, end); its new end. */
  private fold(start: number, end: number): number {
    const buffer = this.buffer;
    const cuts = this.cuts;
    cuts.length = 0;
    let octets = 0;
    for (let i = start; i < end;) {
      let size = 1;
      // Continuation bytes (10xxxxxx) belong to the character before them.
      while (i + size < end && (buffer[i + size] & 0xc0) === 0x80) size++;
      if (octets + size > LINE_OCTETS) {
        cuts.push(i);
        octets = 1;
      }
      octets += size;
      i += size;
    }
    // From the last fold back: move each piece right by three octets per fold before it.
    let shift = cuts.length * 3;
    let pieceEnd = end;
    for (let k = cuts.length - 1; k >= 0; k--) {
      const cut = cuts[k];
      buffer.copyWithin(cut + shift, cut, pieceEnd);
      shift -= 3;
      buffer[cut + shift] = CR;
      buffer[cut + shift + 1] = LF;
      buffer[cut + shift + 2] = 0x20;
      pieceEnd = cut;
    }
    return end + cuts.length * 3;
  }

  /** Room for `bytes` more. */
  private reserve(bytes: number): void {
    if (this.length + bytes > this.buffer.length) this.grow(this.length + bytes);
  }

  private grow(needed: number): void {
    const next = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
    this.buffer.copy(next, 0, 0, this.length);
    this.buffer = next;
  }
}
