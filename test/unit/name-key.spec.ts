import { nameKeyOf } from '../../src/common/text/name-key';

/** The folded key names are matched by: within its 200-character column. */
describe('nameKeyOf', () => {
  it('lower-cases a name', () => {
    expect(nameKeyOf('Jazz & Blues')).toBe('jazz & blues');
  });

  it('cuts a key that lower-casing made longer than 200 characters, never inside a surrogate pair', () => {
    // "İ" folds to "i" and U+0307: 200 of them fold to 400 characters.
    expect('İ'.repeat(200).toLowerCase()).toHaveLength(400);
    expect(nameKeyOf('İ'.repeat(200))).toBe('i\u0307'.repeat(100));
    const key = nameKeyOf(`${'İ'.repeat(100)}🎵`);
    expect(key).toBe('i\u0307'.repeat(100));
    const emoji = nameKeyOf(`${'İ'.repeat(99)}x🎵`);
    expect([emoji.length, emoji.endsWith('x')]).toEqual([199, true]);
  });

  it('drops the spaces a cut key would end in (MariaDB pads with spaces, SQLite does not)', () => {
    const stem = `İ${'a'.repeat(197)}`;
    expect(nameKeyOf(`${stem} b`)).toBe(nameKeyOf(stem));
    expect(nameKeyOf(`${stem}  `)).toBe(`i\u0307${'a'.repeat(197)}`);
    expect(nameKeyOf('Jazz  ')).toBe('jazz');
    expect(nameKeyOf(' Jazz\u00a0')).toBe(' jazz\u00a0');
  });
});
