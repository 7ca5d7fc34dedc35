import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A position in the changes feed. `seq`: every change up to it was given.
 * `initial`: set while a first sync (without `since`) has not yet passed the
 * end of the feed as it was when it began; deletions at or below it are left
 * out, since the client cannot hold those records.
 */
export interface CursorPosition {
  seq: number;
  initial?: number;
}

const VERSION = 'c1';
const MAC_BYTES = 16;

/**
 * Opaque cursors: the position, signed with the key kept in the database
 * (change_state.cursor_key), so a cursor is valid on every instance and after
 * restarts, and anything else is recognised as not ours.
 */
export class CursorCodec {
  constructor(private readonly key: Buffer) {}

  encode(position: CursorPosition): string {
    const payload = Buffer.from(
      position.initial !== undefined && position.initial > position.seq
        ? `${VERSION}:${position.seq}:${position.initial}`
        : `${VERSION}:${position.seq}`,
    ).toString('base64url');
    return `${payload}.${this.mac(payload).toString('base64url')}`;
  }

  /** The position, or undefined when the cursor is not one of ours. */
  decode(cursor: string): CursorPosition | undefined {
    const match = /^([A-Za-z0-9_-]{1,100})\.([A-Za-z0-9_-]{22})$/.exec(cursor);
    if (!match) return undefined;
    const [, payload, mac] = match;
    // Compared as text: the last base64url character carries unused bits, so another spelling decodes alike.
    const expected = Buffer.from(this.mac(payload).toString('base64url'));
    if (!timingSafeEqual(Buffer.from(mac), expected)) return undefined;
    const parts = Buffer.from(payload, 'base64url').toString().split(':');
    if (parts[0] !== VERSION || parts.length < 2 || parts.length > 3) return undefined;
    const [seq, initial] = parts.slice(1).map(Number);
    if (!Number.isSafeInteger(seq) || seq < 0) return undefined;
    if (parts.length === 3 && (!Number.isSafeInteger(initial) || initial <= seq)) return undefined;
    return parts.length === 3 ? { seq, initial } : { seq };
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.key).update(payload).digest().subarray(0, MAC_BYTES);
  }
}
