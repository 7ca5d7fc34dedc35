import type { EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import type { PostColumns, PostTranslationColumns } from '../../database/post-columns';
import type { ErrorKey } from '../errors/error-codes';
import type { ContentMapOptions } from './content-record';

/** Translated texts of a venue or organizer row: the post texts plus the name. */
export type ContentTranslation = PostTranslationColumns & { name: string; nameKey: string };

/** A venue or organizer with its translations loaded. */
export type ContentEntity<T extends ContentTranslation = ContentTranslation> = PostColumns & {
  translations: T[];
};

/** What the generated parts of a record need to know of its kind. */
export interface ContentNames {
  /** Wire name of the translated name field (`venue`, `organizer`); also the slug fallback. */
  nameField: 'venue' | 'organizer';
  /** Collection path under {api}. */
  collection: 'venues' | 'organizers';
  /** Permalink path under PUBLIC_SITE_URL/<language>/. */
  permalinkPath: 'venue' | 'organizer';
}

/**
 * Everything the shared content functions need to know about one kind
 * (venues, organizers): its tables, error codes, searchable columns, how it
 * is linked to events, and its mapper. Defined once per feature module.
 */
export interface ContentKind<
  E extends ContentEntity<T>,
  T extends ContentTranslation,
  R,
> extends ContentNames {
  entity: new () => E;
  translation: new () => T;
  /** Property of the translation entity that holds the record's ID. */
  ownerKey: keyof T & string;
  errors: {
    notFound: ErrorKey;
    notAccessible: ErrorKey;
    inTrash: ErrorKey;
    pageNotFound: ErrorKey;
  };
  /** Shared (untranslated) string columns `search` looks in, as entity properties. */
  searchColumns: ReadonlyArray<keyof E & string>;
  /**
   * A subquery (`SELECT 1 …`) over the events linked to the record whose ID
   * is the SQL expression `outerId`, with the events table aliased `e`.
   */
  linkedEvents(
    qb: SelectQueryBuilder<ObjectLiteral>,
    outerId: string,
  ): SelectQueryBuilder<ObjectLiteral>;
  /** Removes the record from every event (trash and delete, contract §7). */
  unlinkEvents(manager: EntityManager, id: number): Promise<void>;
  /** The resource's mapper (whitelists the record's fields in order). */
  map(item: E, options: ContentMapOptions): R;
}

/** A record named by a path: `/<kind>/:id` or `/<kind>/by-slug/:slug`. */
export type ContentRef = { id: number } | { slug: string };
