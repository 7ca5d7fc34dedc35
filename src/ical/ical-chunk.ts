/**
 * Text written into one Buffer as it is made: a batch of VEVENTs leaves as
 * one chunk. Appending every VEVENT to one long string made the socket
 * measure and flatten a rope of thousands of pieces at each write (a fifth
 * of the feed's CPU); each VEVENT is encoded once here instead.
 */
export class TextChunk {
  private buffer: Buffer;
  private length = 0;

  /** `expectedBytes`: the size to start from (the previous batch's, say); it grows as needed. */
  constructor(expectedBytes = 64 * 1024) {
    this.buffer = Buffer.allocUnsafe(Math.max(1024, expectedBytes));
  }

  append(text: string): void {
    // A UTF-16 code unit never takes more than 3 bytes of UTF-8.
    const most = text.length * 3;
    if (this.length + most > this.buffer.length) this.grow(this.length + most);
    this.length += this.buffer.write(text, this.length, 'utf8');
  }

  get byteLength(): number {
    return this.length;
  }

  /** The bytes written (a view of the buffer: append nothing after this). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  private grow(needed: number): void {
    const next = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
    this.buffer.copy(next, 0, 0, this.length);
    this.buffer = next;
  }
}
