/** The five record kinds of the changes feed, as they appear in its entries (docs/api.md §12). */
export const CHANGE_KINDS = ['event', 'venue', 'organizer', 'category', 'tag'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** `kinds` parameter values (collection names), in the order of CHANGE_KINDS. */
export const CHANGE_COLLECTIONS = ['events', 'venues', 'organizers', 'categories', 'tags'] as const;
export type ChangeCollection = (typeof CHANGE_COLLECTIONS)[number];

export function kindOfCollection(collection: ChangeCollection): ChangeKind {
  return CHANGE_KINDS[CHANGE_COLLECTIONS.indexOf(collection)];
}

/** The kind of a term by its taxonomy. */
export function termKind(taxonomy: string): 'category' | 'tag' {
  return taxonomy === 'post_tag' ? 'tag' : 'category';
}
