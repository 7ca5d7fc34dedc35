import type { ErrorKey } from '../common/errors/error-codes';
import type { PostTranslationColumns } from '../database/post-columns';
import type { ContentMapOptions } from './content-record';
import { externalKeyColumns } from './external-keys';
import type { PostEntity, PostTable, PostTexts } from './post-store';
import type { PostInput } from './post-write';

/*
 * Venues and organizers ("content"): posts with a name instead of a title,
 * listed and written the same way, and linked to events. Each module
 * describes its kind once (VENUES, ORGANIZERS); ContentService does the rest.
 */

/** Translated texts of a venue or organizer row: the post texts plus the name. */
export type ContentTranslation = PostTranslationColumns & { name: string; nameKey: string };

/** A venue or organizer with its translations loaded. */
export type ContentEntity<T extends ContentTranslation = ContentTranslation> = PostEntity<T>;

/** What the generated parts of a record need to know of its kind. */
export interface ContentNames {
  /** Wire name of the translated name field (`venue`, `organizer`); also the slug fallback. */
  titleWire: 'venue' | 'organizer';
  /** Collection path under {api}. */
  collection: 'venues' | 'organizers';
  /** Permalink path under PUBLIC_SITE_URL/<language>/. */
  permalinkPath: 'venue' | 'organizer';
}

/** One create or update of a venue or organizer, split by where each part is stored. */
export interface ContentWrite<E> {
  texts: PostTexts;
  post: PostInput;
  /** The kind's own shared columns; only those sent. */
  columns: Partial<E>;
}

/**
 * Everything the shared content flows need to know about one kind: its
 * tables, error codes, searchable columns, how it is linked to events, how a
 * body becomes a write, and its mapper.
 */
export interface ContentKind<E extends ContentEntity<T>, T extends ContentTranslation, R, D>
  extends PostTable<E, T>, Omit<ContentNames, 'titleWire'> {
  titleWire: ContentNames['titleWire'];
  errors: { notAccessible: ErrorKey; inTrash: ErrorKey; pageNotFound: ErrorKey };
  /** Shared (untranslated) string columns `search` looks in, as entity properties. */
  searchColumns: ReadonlyArray<keyof E & string>;
  /** A validated create or update body as a write. */
  write(input: D): ContentWrite<E>;
  /** Inline objects in event bodies (docs/api.md §6): validated like a create, reused on a match. */
  inline: {
    /** The create DTO: inline objects follow the same rules as POST. */
    dto: new () => D;
    /**
     * Shared columns that must also match (case-insensitively, empty equal to
     * missing) for an existing record with the same name to be reused.
     */
    matchOn: ReadonlyArray<keyof E & string>;
  };
  /** The resource's mapper (whitelists the record's fields in order). */
  map(item: E, options: ContentMapOptions): R;
}

/** The `name`, `nameKey` and slug fallback settings of a venue or organizer table. */
export const CONTENT_TITLE = { titleField: 'name', titleKeyField: 'nameKey' } as const;

/**
 * Builds a ContentWrite from a validated body whose name is sent as `name`.
 * Columns left undefined (not sent) are dropped, so updates keep them.
 */
export function contentWrite<E>(
  input: Omit<PostTexts, 'title'> & PostInput,
  name: string | undefined,
  columns: { [K in keyof E]?: E[K] | undefined },
): ContentWrite<E> {
  return {
    texts: {
      title: name,
      description: input.description,
      excerpt: input.excerpt,
      slug: input.slug,
    },
    post: input,
    columns: Object.fromEntries(
      Object.entries({ ...columns, ...externalKeyColumns(input.external_id) }).filter(
        ([, value]) => value !== undefined,
      ),
    ) as Partial<E>,
  };
}

/** Optional strings are stored as NULL when sent empty; undefined stays "not sent". */
export function emptyToNull(value: string | undefined): string | null | undefined {
  return value === '' ? null : value;
}
