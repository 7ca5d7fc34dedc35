/*
 * The few RFC 5545 rules a writer must get right (§3.1, §3.3): CRLF line
 * ends, lines folded at 75 octets (a fold never splits a UTF-8 character),
 * TEXT values escaped, parameter values quoted. Small and pure, so the feed
 * can write each event as it reads it.
 */

export const CRLF = '\r\n';

/** Control characters RFC 5545 allows in no value (§3.1: all but HTAB; CR and LF are escaped first). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const CONTROL_CHARS = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/** Octets per physical line, the CRLF not counted (RFC 5545 §3.1). */
export const LINE_OCTETS = 75;

/** A parameter of a content line, e.g. `TZID` or `VALUE`. */
export type Params = Record<string, string>;

/**
 * One content line, folded, with its CRLF: `NAME;PARAM=value:VALUE`. The
 * value must already be in its type's form (escape TEXT with escapeText).
 */
export function contentLine(name: string, value: string, params?: Params): string {
  return headedLine(lineHead(name, params), value);
}

/** `NAME;PARAM=value`: what precedes the colon (written once where many lines share it). */
export function lineHead(name: string, params?: Params): string {
  let head = name;
  if (params) for (const key in params) head += `;${key}=${paramValue(params[key])}`;
  return head;
}

/** A content line from its head (lineHead) and value, folded, with its CRLF. */
export function headedLine(head: string, value: string): string {
  return foldLine(`${head}:${value}`) + CRLF;
}

// eslint-disable-next-line no-control-regex -- the characters escapeText changes or drops
const NEEDS_ESCAPE = /[\\;,\r\n\u0000-\u0008\u000b-\u001f\u007f]/;

/**
 * TEXT escaping (§3.3.11): backslash, semicolon and comma get a backslash,
 * every line break becomes `\n`. Control characters other than tab are not
 * allowed in a value (§3.1) and are dropped.
 */
export function escapeText(text: string): string {
  // Most texts need none of it: one scan finds out.
  if (!NEEDS_ESCAPE.test(text)) return text;
  // One pass that copies the runs it does not change (it was four replaces).
  let out = '';
  let copied = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const escaped = escapedChar(code);
    if (escaped === undefined) continue;
    out += text.slice(copied, i) + escaped;
    // CRLF is one line break.
    if (code === 0x0d && text.charCodeAt(i + 1) === 0x0a) i++;
    copied = i + 1;
  }
  return out + text.slice(copied);
}

/** What escapeText writes for a character: undefined for itself, '' to drop it. */
function escapedChar(code: number): string | undefined {
  if (code === 0x5c || code === 0x3b || code === 0x2c) return `\\${String.fromCharCode(code)}`;
  if (code === 0x0a || code === 0x0d) return '\\n';
  // Control characters but tab.
  if ((code < 0x20 && code !== 0x09) || code === 0x7f) return '';
  return undefined;
}

/**
 * A parameter value (§3.2): double quotes are not allowed inside one and are
 * dropped; a value holding `:`, `;` or `,` is quoted.
 */
export function paramValue(value: string): string {
  const clean = value
    .replace(/"/g, '')
    .replace(/[\r\n]/g, '')
    .replace(CONTROL_CHARS, '');
  return /[:;,]/.test(clean) ? `"${clean}"` : clean;
}

/**
 * Folds a line longer than 75 octets: CRLF plus one space before each
 * continuation, each physical line at most 75 octets including that space,
 * and never inside a UTF-8 sequence (the line is walked by code point).
 * The physical lines are slices of the line: appending it character by
 * character made a string of one-character pieces that the socket's UTF-8
 * encoding then walked piece by piece (a fifth of a feed's CPU).
 */
export function foldLine(line: string): string {
  if (line.length <= LINE_OCTETS && /^[\x20-\x7e]*$/.test(line)) return line;
  if (Buffer.byteLength(line, 'utf8') <= LINE_OCTETS) return line;
  const lines: string[] = [];
  let start = 0;
  let octets = 0;
  for (let i = 0; i < line.length;) {
    const codePoint = line.codePointAt(i) as number;
    const size = utf8Length(codePoint);
    if (octets + size > LINE_OCTETS) {
      lines.push(line.slice(start, i));
      start = i;
      octets = 1;
    }
    octets += size;
    i += codePoint > 0xffff ? 2 : 1;
  }
  lines.push(line.slice(start));
  return lines.join(`${CRLF} `);
}

function utf8Length(codePoint: number): number {
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}

/** `YYYY-MM-DD HH:MM:SS` → `YYYYMMDDTHHMMSS` (DATE-TIME, §3.3.5). */
export function dateTimeValue(wire: string): string {
  return `${wire.slice(0, 4)}${wire.slice(5, 7)}${wire.slice(8, 10)}T${wire.slice(11, 13)}${wire.slice(14, 16)}${wire.slice(17, 19)}`;
}

/** `YYYY-MM-DD…` → `YYYYMMDD` (DATE, §3.3.4). */
export function dateValue(wire: string): string {
  return `${wire.slice(0, 4)}${wire.slice(5, 7)}${wire.slice(8, 10)}`;
}
