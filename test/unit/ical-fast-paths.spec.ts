import fc from 'fast-check';
import { decodeHTML } from 'entities';
import { utcWire } from '../../src/common/time/dates';
import { dateTimeDigits, dayDigits } from '../../src/ical/ical-dates';
import { TextChunk } from '../../src/ical/ical-chunk';
import {
  dateTimeValue,
  escapeText,
  foldLine,
  headedLine,
} from '../../src/ical/ical-text';
import { htmlToText } from '../../src/common/text/html-text';
import { zoneBlock } from '../../src/ical/ical-zones';

/*
 * The feed's fast paths write exactly what the plain ones wrote: dates from
 * integers, and texts that need no escaping or tidying returned as they are.
 */

/** The writers before their fast paths, for comparison. */
function escapeTextPlain(text: string): string {
  return (
    text
      .replace(/\r\n?/g, '\n')
      .replace(/[\\;,]/g, (c) => `\\${c}`)
      .replace(/\n/g, '\\n')
      // eslint-disable-next-line no-control-regex -- as in ical-text.ts
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
  );
}

function tidyPlain(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** foldLine as first written: one character appended at a time. */
function foldLinePlain(line: string): string {
  if (Buffer.byteLength(line, 'utf8') <= 75) return line;
  let out = '';
  let octets = 0;
  for (const char of line) {
    const code = char.codePointAt(0) as number;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (octets + size > 75) {
      out += '\r\n ';
      octets = 1;
    }
    out += char;
    octets += size;
  }
  return out;
}

/** htmlToText as first written: eight regular-expression passes (quadratic on unclosed tags). */
function htmlToTextPlain(html: string): string {
  if (!/[<&]/.test(html)) return tidyPlain(html);
  const text = html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/\s*<br\s*\/?>\s*/gi, '\n')
    .replace(/<li\b[^>]*>\s*/gi, '\n- ')
    .replace(/\s*<\/li\s*>/gi, '')
    .replace(/<\/(?:p|div|h[1-6]|tr|blockquote|pre|section|article|ul|ol|table)\s*>/gi, '\n\n')
    .replace(/<(?:p|div|h[1-6]|ul|ol|table|tr|blockquote|pre|section|article)\b[^>]*>/gi, '\n')
    .replace(/<\/?[A-Za-z][^>]*>/g, '');
  return tidyPlain(decodeHTML(text));
}

const FOUR_DIGIT_YEARS = { min: -62135596800, max: 253402300799 };
/** Short texts of what escaping and tidying change: breaks, blanks, separators, control characters. */
const text = fc.string({
  unit: fc.constantFrom(
    'a',
    ' ',
    '\n',
    '\r',
    '\t',
    '\u00a0',
    ',',
    ';',
    '\\',
    '\u0001',
    'é',
    '\u2003',
  ),
  maxLength: 12,
});
/** Long mixed texts for the one-scan tidy: runs of blanks and breaks. */
const longText = fc.string({
  unit: fc.constantFrom(
    'a',
    ' ',
    '  ',
    '\n',
    '\r',
    '\r\n',
    '\t',
    '\u00a0',
    '\u2003',
    '\ufeff',
    'é',
    '\v',
    '\n\n\n',
  ),
  maxLength: 60,
});
/**
 * Well-formed HTML with and without comments, scripts, <br> and lists, and `<`, `>` and `&` as
 * text. Malformed markup (a tag, comment or script left open) is read as a browser reads it,
 * which the eight passes did not (test/unit/html-text.spec.ts).
 */
const markup = fc.string({
  unit: fc.constantFrom(
    '<p>',
    '</p>',
    '<P class="x">',
    '</p >',
    '<br>',
    '<BR/>',
    '<li>',
    '</li>',
    '<ul>',
    '</ul>',
    '<!-- c -->',
    '-->',
    '<script>if (a < b) x();</script>',
    '</script>',
    '<style>p{}</style>',
    '</style>',
    '<strong>',
    '</strong>',
    '<a href="/x">',
    '</a>',
    ' <= ',
    '>',
    '/',
    'p',
    'l',
    'i',
    'a',
    ' ',
    '\n',
    '&amp;',
    '&',
    ',',
  ),
  maxLength: 30,
});
/** One of these characters (one to four UTF-8 octets, lone surrogates) or any one character ('binary'). */
const charOf = (...chars: string[]) =>
  fc.oneof(fc.constantFrom(...chars), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
const FOLDED_CHARS = ['a', 'é', '€', '🎷', '\ud800', '\udc00', ' '];

/** A fast path and the plain writer it must agree with on every generated value. */
function fastPath<T>(
  name: string,
  values: fc.Arbitrary<T>,
  fast: (value: T) => string,
  plain: (value: T) => string,
  numRuns: number,
) {
  const check = () =>
    fc.assert(
      fc.property(values, (value) => {
        expect(fast(value)).toBe(plain(value));
      }),
      { numRuns },
    );
  return { name, check };
}

describe('fast paths write what the plain writers wrote', () => {
  it.each([
    fastPath(
      'dateTimeDigits: the digits of the ISO date for any second of four-digit years',
      fc.integer(FOUR_DIGIT_YEARS),
      dateTimeDigits,
      (seconds) => dateTimeValue(utcWire(seconds)),
      20_000,
    ),
    fastPath('escapeText: what the four replaces wrote', text, escapeText, escapeTextPlain, 5_000),
    fastPath(
      'htmlToText of text without markup: the tidied text (the one-scan tidy)',
      text,
      htmlToText,
      tidyPlain,
      5_000,
    ),
    fastPath(
      'htmlToText tidying in one scan: what the five replaces gave, on long mixed texts',
      longText,
      htmlToText,
      tidyPlain,
      20_000,
    ),
    fastPath(
      'htmlToText of well-formed markup: what the eight passes gave, with and without comments, scripts, <br> and lists',
      markup,
      htmlToText,
      htmlToTextPlain,
      20_000,
    ),
    fastPath(
      'foldLine by slices: the character-by-character fold, lone surrogates included',
      fc.string({ unit: charOf(...FOLDED_CHARS), maxLength: 400 }),
      foldLine,
      foldLinePlain,
      5_000,
    ),
  ])('$name', ({ check }) => check());
});

describe('dateTimeDigits at the edges of days, years and the range, and for fractions of a second', () => {
  it.each([
    0,
    -1,
    86_399,
    86_400,
    951_782_400,
    951_868_799,
    4_107_542_400,
    FOUR_DIGIT_YEARS.min,
    FOUR_DIGIT_YEARS.max,
    FOUR_DIGIT_YEARS.min - 1,
    FOUR_DIGIT_YEARS.max + 1,
    1.5,
    -0.5,
  ])('%p', (seconds) => {
    expect(dateTimeDigits(seconds)).toBe(dateTimeValue(utcWire(seconds)));
  });

  it.each([
    [0, '19700101'],
    [-719_162, '00010101'],
  ])('dayDigits(%p) is %p', (days, digits) => {
    expect(dayDigits(days)).toBe(digits);
  });
});

describe('TextChunk.line', () => {
  it('writes the bytes of headedLine(), folds included, line after line', () => {
    const line = fc.tuple(
      fc.constantFrom('UID', 'DESCRIPTION', 'DTSTART;TZID=Europe/Amsterdam', 'X'),
      fc.string({ unit: charOf(...FOLDED_CHARS, ','), maxLength: 300 }),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 5 }), (lines) => {
        // A small start, so the buffer grows as it goes.
        const chunk = new TextChunk(16);
        for (const [head, value] of lines) chunk.line(head, value);
        const expected = lines.map(([head, value]) => headedLine(head, value)).join('');
        expect(chunk.bytes().equals(Buffer.from(expected, 'utf8'))).toBe(true);
      }),
      { numRuns: 3_000 },
    );
  });
});

describe('ZoneBlock.coversLocal', () => {
  it('answers as covers() for the same wall-clock time', () => {
    const block = zoneBlock('Europe/Amsterdam');
    if (!block) throw new Error('no block');
    // Around the changes of 2026 and on ordinary days.
    for (const wire of [
      '2026-03-29 01:59:59',
      '2026-03-29 02:30:00',
      '2026-03-29 03:00:00',
      '2026-10-25 02:30:00',
      '2026-10-25 03:00:00',
      '2026-07-01 19:00:00',
      '2026-12-01 19:00:00',
    ]) {
      const local = Date.parse(`${wire.replace(' ', 'T')}Z`) / 1000;
      for (const offset of [3600, 7200]) {
        expect(block.coversLocal(local, offset)).toBe(block.covers(wire, offset));
      }
    }
    expect(block.coversLocal(Date.parse('2026-07-01T19:00:00Z') / 1000, 7200)).toBe(true);
    expect(block.coversLocal(Number.NaN, 7200)).toBe(false);
  });
});
