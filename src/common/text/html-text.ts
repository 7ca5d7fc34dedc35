import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';

/**
 * Stored texts may hold HTML; iCalendar, JSON-LD and other plain-text
 * channels get them through this one function.
 *
 * Linear by construction, whatever the text: one pass of htmlparser2's
 * tokenizer (a state machine that reads each character once, entities
 * decoded as it goes), one tidying scan. No regular expression runs over the
 * markup: `<[^>]*>` and its kin backtrack to the end of the text from every
 * unclosed `<`, quadratic in the length.
 *
 * What it gives for well-formed HTML: line breaks where blocks and `<br>`
 * end, list items as `- `, tags, comments, scripts and styles dropped,
 * entities decoded, runs of spaces collapsed, at most one empty line in a
 * row. Malformed markup is read as a browser's tokenizer reads it: a tag left
 * open at the end of the text is dropped, a comment or CDATA section left
 * open hides the rest, `<` before anything but a letter, `/`, `!` or `?` is
 * text.
 */
export function htmlToText(html: string, layout: TextLayout = 'lines'): string {
  const text = html.includes('<') || html.includes('&') ? markupRemoved(html, layout) : html;
  const tidied = tidy(text);
  return layout === 'line' ? oneLine(tidied) : tidied;
}

/**
 * `lines`: blocks and breaks on lines of their own, list items marked `- `
 * (iCalendar DESCRIPTION). `line`: everything on one line, every run of
 * white space one space, list items unmarked (JSON-LD `description`).
 */
export type TextLayout = 'lines' | 'line';

/** Elements that stand on lines of their own. */
const BLOCKS = new Set([
  'p',
  'div',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'table',
  'tr',
  'blockquote',
  'pre',
  'section',
  'article',
]);

/** Elements whose content is no text to show (the tokenizer reads them as raw text up to their end tag). */
const HIDDEN = new Set(['script', 'style']);

/** The markup replaced by line breaks and list marks, entities decoded. */
function markupRemoved(html: string, layout: TextLayout): string {
  const out = new TextWriter(layout === 'lines' ? '\n- ' : '\n');
  const tokenizer = new Tokenizer(
    { xmlMode: false, decodeEntities: true },
    new MarkupReader(html, out),
  );
  tokenizer.write(html);
  tokenizer.end();
  return out.text();
}

/** Tokenizer events → TextWriter calls. The tokenizer reports positions; names are sliced here. */
class MarkupReader implements TokenizerCallbacks {
  private tagName = '';
  /** Inside a script or style element. */
  private hidden = false;

  constructor(
    private readonly html: string,
    private readonly out: TextWriter,
  ) {}

  ontext(start: number, end: number): void {
    if (!this.hidden) this.out.raw(this.html.slice(start, end));
  }

  ontextentity(codePoint: number): void {
    if (!this.hidden) this.out.entity(String.fromCodePoint(codePoint));
  }

  onopentagname(start: number, end: number): void {
    this.tagName = this.html.slice(start, end).toLowerCase();
  }

  onopentagend(): void {
    if (HIDDEN.has(this.tagName)) this.hidden = true;
    else this.openTag(this.tagName);
  }

  onselfclosingtag(): void {
    // `<br/>`; `<script/>` opens nothing (the tokenizer does not read on as raw text).
    this.openTag(this.tagName);
  }

  onclosetag(start: number, end: number): void {
    const name = this.html.slice(start, end).toLowerCase();
    if (this.hidden && HIDDEN.has(name)) {
      this.hidden = false;
      return;
    }
    if (name === 'li') this.out.listItemEnd();
    else if (BLOCKS.has(name)) this.out.blockEnd();
    else this.out.tag();
  }

  private openTag(name: string): void {
    if (name === 'br') this.out.lineBreak();
    else if (name === 'li') this.out.listItem();
    else if (BLOCKS.has(name)) this.out.blockStart();
    else this.out.tag();
  }

  // Comments, CDATA, declarations and processing instructions show nothing; attributes are not read.
  oncomment(): void {}
  oncdata(): void {}
  ondeclaration(): void {}
  onprocessinginstruction(): void {}
  onattribname(): void {}
  onattribdata(): void {}
  onattribentity(): void {}
  onattribend(): void {}
  onend(): void {}
}

/**
 * Collects the text between tags and what each tag becomes. `<br>` takes
 * the white space on either side with it, a list item the white space after
 * its start tag and before its end tag; none of them reaches past another
 * tag (a comment, script or style is no tag here: they are gone first).
 * Every step is constant time or proportional to what it removes.
 */
class TextWriter {
  private readonly pieces: string[] = [];
  /** Where a `<br>` stops taking the white space before it: the end of the last tag's output. */
  private breakFloor = 0;
  /** Where a list item's end tag stops: the last tag's output, `<br>` and a list mark's space excepted. */
  private itemEndFloor = 0;
  /** What takes the white space that follows: a `<br>`, a list item's start tag (which takes line breaks too), or nothing. */
  private taking: 'none' | 'break' | 'item' = 'none';

  constructor(private readonly itemMark: string) {}

  raw(text: string): void {
    if (this.taking !== 'none') {
      text = text.trimStart();
      if (text === '') return;
      this.taking = 'none';
    }
    this.pieces.push(text);
  }

  /**
   * A decoded entity: text that no tag takes, as it was no white space in
   * the markup (`&nbsp;` next to a `<br>` stays).
   */
  entity(text: string): void {
    this.pieces.push(text);
    this.afterTag();
    this.itemEndFloor = this.pieces.length;
  }

  lineBreak(): void {
    this.trimBack(this.breakFloor);
    // A list item's start tag just before takes the line break too.
    if (this.taking !== 'item') {
      this.pieces.push('\n');
      this.taking = 'break';
    }
    this.breakFloor = this.pieces.length;
  }

  listItem(): void {
    const mark = this.itemMark.trimEnd();
    this.pieces.push(mark);
    this.itemEndFloor = this.pieces.length;
    // The mark's space may go to an end tag right after.
    if (mark !== this.itemMark) this.pieces.push(this.itemMark.slice(mark.length));
    this.breakFloor = this.pieces.length;
    this.taking = 'item';
  }

  listItemEnd(): void {
    this.trimBack(this.itemEndFloor);
    this.afterTag();
  }

  blockStart(): void {
    this.pieces.push('\n');
    this.afterTag();
    this.itemEndFloor = this.pieces.length;
  }

  blockEnd(): void {
    this.pieces.push('\n\n');
    this.afterTag();
    this.itemEndFloor = this.pieces.length;
  }

  tag(): void {
    this.afterTag();
    this.itemEndFloor = this.pieces.length;
  }

  text(): string {
    return this.pieces.join('');
  }

  private afterTag(): void {
    this.breakFloor = this.pieces.length;
    this.taking = 'none';
  }

  /** Drops the white space (JavaScript's `\s`) at the end, down to piece `floor`. */
  private trimBack(floor: number): void {
    while (this.pieces.length > floor) {
      const last = this.pieces[this.pieces.length - 1];
      const trimmed = last.trimEnd();
      if (trimmed !== '') {
        this.pieces[this.pieces.length - 1] = trimmed;
        return;
      }
      this.pieces.pop();
    }
  }
}

/** What tidy() would change: CR, tabs and no-break spaces, two spaces, a space by a line break, three line breaks, white space at either end. */
const UNTIDY = /[\r\t\u00a0]| {2}| \n|\n |\n\n\n|^\s|\s$/;

/**
 * Line breaks unified (CRLF, CR → LF), runs of spaces, tabs and no-break
 * spaces as one space, no space beside a line break, at most two line
 * breaks in a row, trimmed. One scan that copies only the runs it changes.
 */
function tidy(text: string): string {
  if (!UNTIDY.test(text)) return text;
  let out = '';
  let copied = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.charCodeAt(i);
    // Most runs are one space between words: nothing to change.
    if (!isBlankOrBreak(code) || (code === 0x20 && !isBlankOrBreak(text.charCodeAt(i + 1)))) {
      i++;
      continue;
    }
    const run = blankRun(text, i);
    const replacement = run.breaks === 0 ? ' ' : run.breaks === 1 ? '\n' : '\n\n';
    if (run.end - i !== replacement.length || !text.startsWith(replacement, i)) {
      out += text.slice(copied, i) + replacement;
      copied = run.end;
    }
    i = run.end;
  }
  return (copied === 0 ? text : out + text.slice(copied)).trim();
}

/** Space, tab, no-break space, CR or LF. */
function isBlankOrBreak(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0xa0 || code === 0x0a || code === 0x0d;
}

/** Where the run of blanks and line breaks starting at `start` ends, and its line breaks (CRLF is one). */
function blankRun(text: string, start: number): { end: number; breaks: number } {
  let end = start;
  let breaks = 0;
  while (end < text.length) {
    const code = text.charCodeAt(end);
    if (code === 0x0d) {
      breaks++;
      end += text.charCodeAt(end + 1) === 0x0a ? 2 : 1;
    } else if (code === 0x0a) {
      breaks++;
      end++;
    } else if (code === 0x20 || code === 0x09 || code === 0xa0) {
      end++;
    } else {
      break;
    }
  }
  return { end, breaks };
}

/** Every run of white space (JavaScript's `\s`, line breaks included) as one space; the text is already trimmed. */
function oneLine(text: string): string {
  let out = '';
  let copied = 0;
  for (let i = 0; i < text.length; i++) {
    if (!isWhiteSpace(text.charCodeAt(i))) continue;
    let end = i + 1;
    while (end < text.length && isWhiteSpace(text.charCodeAt(end))) end++;
    if (end - i > 1 || text.charCodeAt(i) !== 0x20) {
      out += `${text.slice(copied, i)} `;
      copied = end;
    }
    i = end - 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** JavaScript's `\s`: the white space and line terminators of ECMAScript. */
function isWhiteSpace(code: number): boolean {
  return (
    (code >= 0x09 && code <= 0x0d) ||
    code === 0x20 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
