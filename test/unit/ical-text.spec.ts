import fc from 'fast-check';
import ICAL from 'ical.js';
import {
  CONTROL_CHARS,
  contentLine,
  escapeText,
  foldLine,
  paramValue,
} from '../../src/ical/ical-text';
import { htmlToText } from '../../src/common/text/html-text';
import { zoneBlock } from '../../src/ical/ical-zones';

/** Physical lines of a folded content line, as bytes. */
function physicalLines(text: string): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  const lines: Buffer[] = [];
  let start = 0;
  for (let i = bytes.indexOf('\r\n'); i !== -1; i = bytes.indexOf('\r\n', start)) {
    lines.push(bytes.subarray(start, i));
    start = i + 2;
  }
  lines.push(bytes.subarray(start));
  return lines;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

describe('foldLine', () => {
  it('leaves lines of up to 75 octets alone', () => {
    expect(foldLine('A'.repeat(75))).toBe('A'.repeat(75));
    expect(foldLine('é'.repeat(37) + 'A')).toBe('é'.repeat(37) + 'A');
  });

  it('folds at exactly 75 octets, continuation lines counting their space', () => {
    expect(foldLine('A'.repeat(76))).toBe(`${'A'.repeat(75)}\r\n A`);
    expect(foldLine('A'.repeat(75 + 74 + 1))).toBe(`${'A'.repeat(75)}\r\n ${'A'.repeat(74)}\r\n A`);
  });

  it('never splits a multi-byte character', () => {
    // 73 ASCII octets + a 4-octet emoji: the emoji moves to the next line whole.
    expect(foldLine(`${'A'.repeat(73)}🎷B`)).toBe(`${'A'.repeat(73)}\r\n 🎷B`);
    expect(foldLine(`${'A'.repeat(71)}🎷B`)).toBe(`${'A'.repeat(71)}🎷\r\n B`);
    expect(foldLine(`${'A'.repeat(74)}é`)).toBe(`${'A'.repeat(74)}\r\n é`);
  });

  it('for any text: lines ≤ 75 octets, each valid UTF-8, unfolding gives the text back', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (value) => {
        const clean = value.replace(/[\r\n]/g, '');
        const folded = foldLine(`X:${clean}`);
        for (const line of physicalLines(folded)) {
          expect(line.length).toBeLessThanOrEqual(75);
          expect(() => decoder.decode(line)).not.toThrow();
        }
        expect(folded.replace(/\r\n /g, '')).toBe(`X:${clean}`);
      }),
      { numRuns: 500 },
    );
  });
});

describe('RFC 5545 examples', () => {
  it('escapes the comma of §3.8.1.7 (LOCATION)', () => {
    expect(contentLine('LOCATION', escapeText('Conference Room - F123, Bldg. 002'))).toBe(
      'LOCATION:Conference Room - F123\\, Bldg. 002\r\n',
    );
  });

  it('escapes the line breaks of §3.8.1.5 (DESCRIPTION) and folds at 75 octets (§3.1)', () => {
    const text =
      'Meeting to provide technical review for "Phoenix" design.\n' +
      'Happy Face Conference Room. Phoenix design team MUST attend this meeting.\n' +
      'RSVP to team leader.';
    // The RFC's own lines, unfolded, cut again by hand at 75 octets (74 after a fold's space).
    expect(contentLine('DESCRIPTION', escapeText(text))).toBe(
      'DESCRIPTION:Meeting to provide technical review for "Phoenix" design.\\nHapp\r\n' +
        ' y Face Conference Room. Phoenix design team MUST attend this meeting.\\nRSV\r\n' +
        ' P to team leader.\r\n',
    );
  });
});

describe('escapeText', () => {
  it('escapes backslash, semicolon, comma and line breaks', () => {
    expect(escapeText('a,b;c\\d\ne\r\nf\rg')).toBe('a\\,b\\;c\\\\d\\ne\\nf\\ng');
  });

  it('drops control characters but keeps tabs', () => {
    expect(escapeText('a\u0000b\u001fc\td\u007f')).toBe('abc\td');
  });

  it('round-trips any text through ical.js', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (value) => {
        const text = `BEGIN:VCALENDAR\r\n${contentLine('SUMMARY', escapeText(value))}END:VCALENDAR\r\n`;
        const parsed = new ICAL.Component(ICAL.parse(text));
        const expected = value
          .replace(/\r\n?/g, '\n')
          .replace(CONTROL_CHARS, '');
        expect(parsed.getFirstPropertyValue('summary') ?? '').toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe('paramValue', () => {
  it('quotes values with : ; or , and drops double quotes', () => {
    expect(paramValue('Mojo')).toBe('Mojo');
    expect(paramValue('Mojo; Concerts')).toBe('"Mojo; Concerts"');
    expect(paramValue('a:b')).toBe('"a:b"');
    expect(paramValue('say "hi", ok')).toBe('"say hi, ok"');
  });

  it('gives ical.js the parameter back', () => {
    const line = contentLine('ORGANIZER', 'mailto:a@b.nl', { CN: 'De "Groene" Zaal; A, B' });
    const parsed = new ICAL.Component(ICAL.parse(`BEGIN:VEVENT\r\n${line}END:VEVENT\r\n`));
    expect(parsed.getFirstProperty('organizer')?.getParameter('cn')).toBe('De Groene Zaal; A, B');
  });
});

describe('htmlToText', () => {
  it('turns blocks, breaks and list items into lines and decodes entities', () => {
    expect(
      htmlToText(
        '<h2>Title</h2><p>One &amp; <b>two</b>&nbsp;&nbsp;three</p><ul><li>a</li><li>b</li></ul><p>x<br/>y</p>',
      ),
    ).toBe('Title\n\nOne & two three\n\n- a\n- b\n\nx\ny');
  });

  it('drops comments, scripts and styles', () => {
    expect(htmlToText('a<!-- c --><script>alert(1)</script><style>p{}</style>b')).toBe('ab');
  });

  it('keeps plain text as it is, tidied', () => {
    expect(htmlToText('  line one  \n\n\n\nline   two ')).toBe('line one\n\nline two');
    expect(htmlToText('5 < 6 and 7 > 3')).toBe('5 < 6 and 7 > 3');
  });
});

describe('zoneBlock', () => {
  it('names a linked zone as asked and maps local times to their offsets', () => {
    const block = zoneBlock('Europe/Amsterdam');
    expect(block?.text).toMatch(/^BEGIN:VTIMEZONE\r\nTZID:Europe\/Amsterdam\r\n/);
    expect(block?.text).toMatch(/END:VTIMEZONE\r\n$/);
    expect(block?.covers('2027-03-27 19:00:00', 3600)).toBe(true);
    expect(block?.covers('2027-03-29 19:00:00', 7200)).toBe(true);
    expect(block?.covers('2027-03-29 19:00:00', 3600)).toBe(false);
    // The day of the change itself: before and after 02:00.
    expect(block?.covers('2027-03-28 01:30:00', 3600)).toBe(true);
    expect(block?.covers('2027-03-28 03:30:00', 7200)).toBe(true);
    expect(block?.covers('2027-03-28 03:30:00', 3600)).toBe(false);
    expect(block?.covers('2027-10-31 01:30:00', 7200)).toBe(true);
    expect(block?.covers('2027-10-31 04:00:00', 3600)).toBe(true);
  });

  it('has no block for a zone the library does not know', () => {
    expect(zoneBlock('Mars/Olympus')).toBeNull();
    expect(zoneBlock('UTC+2')).toBeNull();
  });
});
