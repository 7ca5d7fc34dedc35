import { VerifiedTokens } from '../../src/auth/verified-tokens';

const EDITOR = { id: 7, role: 'editor' as const };

describe('VerifiedTokens', () => {
  it('answers a verified token until its exp, then forgets it', () => {
    const tokens = new VerifiedTokens();
    tokens.set('a.b.c', EDITOR, 1_000, 1_030);
    expect(tokens.get('a.b.c', 1_000)).toEqual(EDITOR);
    expect(tokens.get('a.b.c', 1_029)).toEqual(EDITOR);
    // jose refuses a token from its exp second on.
    expect(tokens.get('a.b.c', 1_030)).toBeUndefined();
    expect(tokens.get('a.b.c', 1_000)).toBeUndefined();
  });

  it('trusts a token for at most 60 s, with or without exp', () => {
    const tokens = new VerifiedTokens();
    tokens.set('no-exp', EDITOR, 1_000, undefined);
    tokens.set('late-exp', EDITOR, 1_000, 99_999);
    expect(tokens.get('no-exp', 1_059)).toEqual(EDITOR);
    expect(tokens.get('no-exp', 1_060)).toBeUndefined();
    expect(tokens.get('late-exp', 1_060)).toBeUndefined();
  });

  it('keeps nothing for an expired token, a long token or an unknown one', () => {
    const tokens = new VerifiedTokens();
    tokens.set('expired', EDITOR, 1_000, 1_000);
    tokens.set('x'.repeat(2_049), EDITOR, 1_000, 1_030);
    expect(tokens.get('expired', 999)).toBeUndefined();
    expect(tokens.get('x'.repeat(2_049), 1_000)).toBeUndefined();
    expect(tokens.get('never-set', 1_000)).toBeUndefined();
  });

  it('holds at most 1,000 tokens, dropping the oldest', () => {
    const tokens = new VerifiedTokens();
    for (let i = 0; i < 1_001; i++) tokens.set(`t${i}`, { id: i + 1, role: 'author' }, 1_000, 1_030);
    expect(tokens.get('t0', 1_000)).toBeUndefined();
    expect(tokens.get('t1', 1_000)).toEqual({ id: 2, role: 'author' });
    expect(tokens.get('t1000', 1_000)).toEqual({ id: 1_001, role: 'author' });
  });
});
