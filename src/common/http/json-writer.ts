import type { NextFunction, Request, Response } from 'express';
import { randomBytes } from 'node:crypto';

/*
 * JSON answers written from pieces: records shared by many answers (the
 * venues, organizers and terms a feed embeds in thousands of events) are
 * encoded to UTF-8 once and their bytes reused, instead of being stringified
 * and encoded again inside every record that embeds them. The bytes are
 * exactly those of JSON.stringify on the same value.
 */

/** Values registered by `shareJson`: deeply frozen, so their JSON never changes. */
// Not write state: a memo of frozen values' JSON bytes.
const encoded = new WeakMap<object, Buffer | null>();

/**
 * Freezes `value` deeply and registers it as shared: wherever a JsonWriter
 * meets it, it writes the bytes it encoded the first time.
 */
export function shareJson<T extends object>(value: T): T {
  deepFreeze(value);
  if (!encoded.has(value)) encoded.set(value, null);
  return value;
}

/** A record kept as its encoded JSON only (encodedStandIn). */
class EncodedStandIn {
  /**
   * What JSON.stringify makes of it outside a JsonWriter: the value its bytes
   * encode (slower than the bytes, but the same JSON).
   */
  toJSON(): unknown {
    return JSON.parse(JsonWriter.sharedBytes(this).toString('utf8'));
  }
}

/**
 * A frozen stand-in for a record that is kept as its encoded JSON only:
 * `members` are what code reads of it (an ID, what visibility tests), and
 * wherever a JsonWriter meets it, it writes `bytes` (the whole record's). A
 * record object takes several times its JSON in the heap; a stand-in a few
 * dozen bytes beside the Buffer.
 */
export function encodedStandIn<T extends object>(members: T, bytes: Buffer): T {
  const standIn = Object.freeze(Object.assign(new EncodedStandIn(), members));
  encoded.set(standIn, bytes);
  return standIn as T;
}

function deepFreeze(value: object): void {
  for (const member of Object.values(value)) {
    if (member !== null && typeof member === 'object' && !Object.isFrozen(member))
      deepFreeze(member);
  }
  Object.freeze(value);
}

function isShared(value: unknown): value is object {
  return value !== null && typeof value === 'object' && encoded.has(value);
}

/** A list of shared values only (an event's categories): written element by element. */
function isSharedList(value: unknown): value is object[] {
  return Array.isArray(value) && value.length > 0 && value.every(isShared);
}

/**
 * Stands in for a member while its object is stringified. No text of a
 * record can equal it: it holds a random token made at start-up.
 */
const PLACEHOLDER = `\u0000${randomBytes(16).toString('hex')}:`;
const placeholder = (i: number) => `${PLACEHOLDER}${i}`;

/** How a member of an object is written when it is not simply stringified. */
type MemberWriters = Record<string, (value: never, out: JsonWriter) => void>;

/**
 * Builds one JSON document of plain objects and arrays from pieces: shared
 * values (shareJson) are taken as bytes, object members named in `members`
 * are written by their callback (for nesting), everything else is
 * stringified as it comes.
 */
export class JsonWriter {
  private readonly parts: Buffer[] = [];
  private text = '';

  /**
   * The UTF-8 JSON of a shared value (shareJson), encoded the first time it
   * is asked for. Shared values it holds (an event record embeds venues) are
   * taken as their own bytes.
   */
  static sharedBytes(value: object): Buffer {
    let bytes = encoded.get(value);
    if (!bytes) {
      const out = new JsonWriter();
      if (Array.isArray(value)) out.array(value, (item) => out.value(item));
      else out.fields(value);
      encoded.set(value, (bytes = ownMemory(out.bytes())));
    }
    return bytes;
  }

  /**
   * Writes an object with its own members in their order, as JSON.stringify
   * would: stringified in one piece with the members it writes otherwise
   * (shared ones, and those named in `members`) stood in for by placeholder
   * strings, which are then replaced by those members' own pieces.
   */
  object(value: object, members: MemberWriters = {}): void {
    if (encoded.has(value)) this.value(value);
    else this.fields(value, members);
  }

  private fields(value: object, members: MemberWriters = {}): void {
    let copy: Record<string, unknown> | undefined;
    const own: Array<[string, unknown]> = [];
    for (const key of Object.keys(value)) {
      const member = (value as Record<string, unknown>)[key];
      if (member === undefined) continue;
      const nested = Object.hasOwn(members, key) && typeof member === 'object' && member !== null;
      if (nested || isShared(member) || isSharedList(member)) {
        copy ??= { ...value };
        copy[key] = placeholder(own.length);
        own.push([key, member]);
      }
    }
    if (!copy) {
      this.text += JSON.stringify(value);
      return;
    }
    const json = JSON.stringify(copy);
    let at = 0;
    own.forEach(([key, member], i) => {
      const mark = JSON.stringify(placeholder(i));
      const found = json.indexOf(mark, at);
      this.text += json.slice(at, found);
      at = found + mark.length;
      if (Object.hasOwn(members, key)) members[key](member as never, this);
      else this.value(member);
    });
    this.text += json.slice(at);
  }

  /** Writes an array, each element by `write`. */
  array<T>(items: readonly T[], write: (item: T, out: JsonWriter) => void): void {
    this.text += '[';
    items.forEach((item, i) => {
      if (i > 0) this.text += ',';
      write(item, this);
    });
    this.text += ']';
  }

  /** Writes any value: shared ones and lists of them from their bytes, others stringified. */
  value(value: unknown): void {
    if (isShared(value)) {
      this.flush();
      this.parts.push(JsonWriter.sharedBytes(value));
    } else if (isSharedList(value)) {
      this.array(value, (item) => this.value(item));
    } else {
      this.text += JSON.stringify(value) ?? 'null';
    }
  }

  /** The document's UTF-8 bytes. */
  bytes(): Buffer {
    this.flush();
    return this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts);
  }

  private flush(): void {
    if (this.text === '') return;
    this.parts.push(Buffer.from(this.text, 'utf8'));
    this.text = '';
  }
}

/**
 * Bytes kept as long as their value: in memory of their own. A small Buffer
 * made from a string is a slice of Node's shared 8 KB pool, and keeping it
 * keeps the whole slab: the ~20,000 venue and organizer records a changes
 * sync at 1M keeps held 8 KB each for their few hundred bytes (75 MB of
 * slabs in a heap snapshot, docs/performance.md, Memory).
 */
function ownMemory(bytes: Buffer): Buffer {
  if (bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const own = Buffer.allocUnsafeSlow(bytes.byteLength);
  bytes.copy(own);
  return own;
}

/** A JSON answer already encoded: `res.json` sends its bytes as they are (jsonBytesMiddleware). */
export class JsonBytes {
  constructor(readonly bytes: Buffer) {}
}

interface BytesLocals {
  answerBytes?: { value: unknown; bytes: Buffer };
}

/**
 * Tells `res.json` the bytes of `value`, built already (a write's answer,
 * writeAnswer): when the handler's result reaches `res.json` as this very
 * object, those bytes are sent instead of serializing it again. A result
 * replaced on its way (another object) is serialized as usual.
 */
export function sendAsBytes(res: Response, value: unknown, bytes: Buffer): void {
  (res.locals as BytesLocals).answerBytes = { value, bytes };
}

/**
 * Express middleware: `res.json` of a JsonBytes, or of the value sendAsBytes
 * named, sends those bytes as a JSON answer (through `res.send`, so
 * conditionalGet hashes and tags them as any other JSON answer); everything
 * else goes to Express's own `res.json`.
 */
export function jsonBytesMiddleware(_req: Request, res: Response, next: NextFunction): void {
  const json = res.json.bind(res);
  res.json = function jsonOrBytes(body?: unknown) {
    const kept = (res.locals as BytesLocals).answerBytes;
    const bytes =
      body instanceof JsonBytes
        ? body.bytes
        : kept !== undefined && kept.value === body
          ? kept.bytes
          : undefined;
    if (bytes === undefined) return json(body);
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    return res.send(bytes);
  } as Response['json'];
  next();
}
