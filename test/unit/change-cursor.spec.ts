import { CursorCodec } from '../../src/changes/change-cursor';

describe('changes feed cursors', () => {
  const codec = new CursorCodec(Buffer.alloc(32, 7));
  const other = new CursorCodec(Buffer.alloc(32, 8));

  it('round-trips positions, with the first-sync horizon only while it is ahead', () => {
    expect(codec.decode(codec.encode({ seq: 0 }))).toEqual({ seq: 0 });
    expect(codec.decode(codec.encode({ seq: 12, initial: 40 }))).toEqual({ seq: 12, initial: 40 });
    expect(codec.decode(codec.encode({ seq: 40, initial: 40 }))).toEqual({ seq: 40 });
    expect(codec.encode({ seq: 5 })).toBe(codec.encode({ seq: 5 }));
  });

  it('rejects cursors signed with another key, altered, or respelled', () => {
    const cursor = codec.encode({ seq: 31, initial: 90 });
    const [payload, mac] = cursor.split('.');
    expect(other.decode(cursor)).toBeUndefined();
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // Every other last character, including those that differ only in unused bits.
    for (const c of alphabet.replace(mac.slice(-1), '')) {
      expect(codec.decode(`${payload}.${mac.slice(0, -1)}${c}`)).toBeUndefined();
    }
    const forged = Buffer.from('c1:0:90').toString('base64url');
    for (const bad of [
      '',
      'x',
      `${forged}.${mac}`,
      `${payload}x.${mac}`,
      `${cursor}.`,
      `${payload}.${mac}=`,
    ]) {
      expect(codec.decode(bad)).toBeUndefined();
    }
  });
});
