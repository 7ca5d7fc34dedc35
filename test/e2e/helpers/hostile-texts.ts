/*
 * Hostile texts for the adversarial-content suite (docs/reliability.md): each
 * built to a field's length limit, each starting with a marker word that a
 * search can find. One catalogue, so every channel gets every text.
 */

export interface HostileText {
  name: string;
  /** What the text repeats after its marker. */
  piece: string;
  /** Answered 400 `rest_invalid_param` naming each field, instead of stored (docs/decisions.md). */
  refused?: true;
}

export const HOSTILE_TEXTS: HostileText[] = [
  { name: 'unclosed tags repeated', piece: '<p ' },
  { name: 'unclosed list items repeated', piece: '<li' },
  { name: 'nested tags never closed', piece: '<div><b><i>' },
  { name: 'a comment left open', piece: '<!-- -- ->' },
  { name: 'CDATA left open', piece: '<![CDATA[ ]] >' },
  { name: 'a script left open', piece: '<script>x</scrip' },
  { name: 'an entity flood', piece: '&amp;&lt;&#128183;&' },
  { name: 'characters without a space', piece: 'a' },
  { name: 'combining marks', piece: 'e\u0301\u0302\u0303\u0304' },
  { name: 'emoji', piece: '👩‍👩‍👧‍👦🎷🇳🇱' },
  { name: 'right-to-left marks', piece: '\u202eabc\u200f\u2067d\u2069\u061c' },
  { name: 'NUL and control characters', piece: 'a\u0000b\u0007\u001b\u007f\u0085\t\r\n' },
  { name: 'lone surrogates', piece: 'x\ud800y\udc00', refused: true },
];

/** The marker word of text `index`: a word no other text contains. */
export function markerOf(index: number): string {
  return `hostile${index}q`;
}

/**
 * Text `index` at no more than `length` characters: its marker, a space, and
 * whole pieces (a piece is never cut, so no surrogate pair is split).
 */
export function hostileText(index: number, length: number): string {
  const head = `${markerOf(index)} `;
  const { piece } = HOSTILE_TEXTS[index];
  return head + piece.repeat(Math.floor((length - head.length) / piece.length));
}

/** Every stored free-text field of every kind, with its length limit (the DTOs). */
export const FREE_TEXT_FIELDS = {
  event: { title: 200, excerpt: 1_000, description: 100_000 },
  venue: {
    venue: 200,
    excerpt: 1_000,
    description: 100_000,
    address: 255,
    city: 255,
    country: 255,
    province: 255,
    state: 255,
    zip: 255,
    stateprovince: 255,
    phone: 255,
  },
  organizer: { organizer: 200, excerpt: 1_000, description: 100_000, phone: 255 },
  category: { name: 200, description: 100_000 },
  tag: { name: 200, description: 100_000 },
} as const;

export type Kind = keyof typeof FREE_TEXT_FIELDS;

export const COLLECTION: Record<Kind, string> = {
  event: 'events',
  venue: 'venues',
  organizer: 'organizers',
  category: 'categories',
  tag: 'tags',
};

/** The body's free-text fields of kind `kind` filled with text `index`. */
export function hostileFields(kind: Kind, index: number): Record<string, string> {
  return Object.fromEntries(
    Object.entries(FREE_TEXT_FIELDS[kind]).map(([field, limit]) => [
      field,
      hostileText(index, limit),
    ]),
  );
}
