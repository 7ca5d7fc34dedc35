import { htmlToText, type TextLayout } from '../../src/common/text/html-text';

/*
 * The one HTML-to-text function of every plain-text channel (iCalendar
 * DESCRIPTION, JSON-LD description): what it gives for markup a browser
 * would also have to guess at, and that its time grows linearly with the
 * length of the text for every shape that made regular expressions
 * backtrack.
 */

describe('htmlToText on malformed markup reads it as a browser does', () => {
  it.each([
    ['a tag left open at the end is dropped', 'Tickets <p class="x', 'Tickets'],
    ['the issue’s description: unclosed tags to the end', '<p '.repeat(5), ''],
    ['a comment left open hides the rest', 'one<!-- two', 'one'],
    ['a CDATA section is no text in HTML', 'one<![CDATA[two]]>three<![CDATA[four', 'onethree'],
    ['a script left open hides the rest', 'one<script>alert(1)', 'one'],
    ['declarations and processing instructions are dropped', '<!DOCTYPE html><?php x ?>one', 'one'],
    ['`<` before a digit, a space or `=` is text', 'a <3 b < c <= d', 'a <3 b < c <= d'],
    ['an end tag with attributes still ends its block', '<p>a</p class="x">b', 'a\n\nb'],
    ['a quoted `>` stays inside the attribute', '<a title="x>y">link</a>', 'link'],
    ['a <br> with attributes breaks the line', 'a<br class="x">b', 'a\nb'],
    ['`<!-->` is an empty comment', 'a<!-->b', 'ab'],
  ])('%s', (_name, html, text) => {
    expect(htmlToText(html)).toBe(text);
  });
});

describe('htmlToText on one line (JSON-LD)', () => {
  it('puts blocks, breaks and list items on one line, each run of white space one space', () => {
    expect(
      htmlToText(
        '<h2>Title</h2><p>One &amp; <b>two</b>&nbsp;&nbsp;three</p><ul><li>a</li><li>b</li></ul><p>x<br/>y\u2003\u2003z</p>',
        'line',
      ),
    ).toBe('Title One & two three a b x y z');
  });

  it('keeps plain text as it is, its white space collapsed', () => {
    expect(htmlToText('  Plain\ttext,\r\n\r\n  two lines ', 'line')).toBe('Plain text, two lines');
    expect(htmlToText('Plain text', 'line')).toBe('Plain text');
  });

  it('drops scripts and styles, whose content is no text', () => {
    expect(htmlToText('a <script>alert(1)</script><style>p{}</style>b', 'line')).toBe('a b');
  });
});

/** Longest text a description may hold (docs/api.md: ≤ 100,000 characters). */
const LIMIT = 100_000;

/** `piece` repeated to `length` characters. */
function repeated(piece: string, length: number): string {
  return piece.repeat(Math.ceil(length / piece.length)).slice(0, length);
}

/**
 * Texts whose time grew with the square of their length under regular
 * expressions (`<[^>]*>`, `\s*<br`, `<!--[\s\S]*?-->`, `<script…>[\s\S]*?</script>`)
 * and other shapes a tokenizer could stumble on, each of a given length.
 */
const SHAPES: Record<string, (length: number) => string> = {
  'unclosed <p repeated': (n) => repeated('<p ', n),
  'unclosed <li repeated': (n) => repeated('<li', n),
  'unclosed <a repeated': (n) => repeated('<a', n),
  'unclosed <br repeated': (n) => repeated('<br', n),
  'unclosed end tags repeated': (n) => repeated('</p ', n),
  'open tags nested, never closed': (n) => repeated('<div><b>', n),
  'nested tags closed in the wrong order': (n) => repeated('<b><i>', n / 2) + repeated('</b></i>', n / 2),
  'end tags without start tags': (n) => repeated('</span>', n),
  'comments opened repeatedly, never closed': (n) => repeated('<!--', n),
  'one open comment': (n) => `<!--${repeated('- -> ', n - 4)}`,
  'CDATA opened repeatedly, never closed': (n) => repeated('<![CDATA[', n),
  'scripts opened repeatedly, never closed': (n) => repeated('<script>', n),
  'styles opened repeatedly, never closed': (n) => repeated('<style>', n),
  'a script holding almost-end tags': (n) => `<script>${repeated('</scrip', n - 8)}`,
  'declarations left open': (n) => repeated('<!x', n),
  'processing instructions left open': (n) => repeated('<?x', n),
  'an attribute value left open': (n) => `<a href="${repeated('x', n - 9)}`,
  'attributes repeated': (n) => `<p${repeated(' a=b', n - 2)}`,
  'a tag name without end': (n) => `<${repeated('a', n - 1)}`,
  'white space before a <br>': (n) => `${repeated(' ', n - 4)}<br>`,
  'white space after a <br>, before text': (n) => `<br>x${repeated(' ', n - 6)}x`,
  'white space and line breaks between list items': (n) => repeated('<li> \n </li>', n),
  'breaks and white space alternating': (n) => repeated('<br> \u2003', n),
  'an entity flood': (n) => repeated('&amp;', n),
  'ampersands without entity': (n) => repeated('&', n),
  'a named entity that never ends': (n) => `&${repeated('a', n - 1)}`,
  'a numeric entity that never ends': (n) => `&#${repeated('9', n - 2)}`,
  'a hexadecimal entity that never ends': (n) => `&#x${repeated('f', n - 3)}`,
  'characters without a space': (n) => repeated('a', n),
  'characters without a space, one tag at the end': (n) => `${repeated('a', n - 3)}<b>`,
  'line breaks': (n) => repeated('\n', n),
  'CR and tabs': (n) => repeated('\r\t', n),
  'combining marks': (n) => repeated('e\u0301\u0302', n),
  'emoji and right-to-left marks': (n) => repeated('🎷\u202e\u200f', n),
};

/**
 * The shortest of `runs` timings of `work`, in ms of this process's CPU time: wall time on a
 * loaded machine (load 20 on two cores) includes every slice the scheduler gave to other
 * processes, which made a linear conversion look superlinear; CPU time does not.
 */
function fastestOf(runs: number, work: () => void): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = process.cpuUsage();
    work();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

describe('htmlToText takes time linear in the length of the text', () => {
  const layouts: TextLayout[] = ['lines', 'line'];
  it.each(Object.keys(SHAPES).flatMap((shape) => layouts.map((layout) => [shape, layout])))(
    '%s (%s): each doubling of the text at most about doubles the time',
    (shape, layout) => {
      const quarter = SHAPES[shape](LIMIT / 4);
      const full = SHAPES[shape](LIMIT);
      expect([quarter.length, full.length]).toEqual([LIMIT / 4, LIMIT]);
      const convert = (html: string) => () => htmlToText(html, layout as TextLayout);
      // Warm-up: compiled code and a grown heap for both lengths.
      fastestOf(3, convert(quarter));
      fastestOf(3, convert(full));
      // Two doublings. Linear: about 4× (2× each); quadratic: about 16× (4× each). 8× (2.8× a
      // doubling) plus a millisecond of timer slack, and a new measurement when one misses it:
      // garbage collection and other processes on a loaded machine make single ones vary by 2×,
      // a quadratic time misses it every time.
      const ratios: string[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        const quarterTime = fastestOf(7, convert(quarter));
        const fullTime = fastestOf(7, convert(full));
        if (fullTime <= 8 * quarterTime + 1) return;
        ratios.push(`${fullTime.toFixed(1)} ms / ${quarterTime.toFixed(1)} ms`);
      }
      throw new Error(`superlinear: ${ratios.join(', ')}`);
    },
  );
});
