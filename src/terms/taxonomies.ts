import type { Taxonomy } from '../auth/policy';
import type { ErrorKey } from '../common/errors/error-codes';

/** What differs between the two taxonomies. */
export interface TaxonomyInfo {
  taxonomy: Taxonomy;
  /** Collection path under {api}. */
  collection: 'categories' | 'tags';
  /** Permalink path under PUBLIC_SITE_URL/<language>/. */
  permalinkPath: string;
  notFound: ErrorKey;
  hasParent: boolean;
}

export const CATEGORIES: TaxonomyInfo = {
  taxonomy: 'tribe_events_cat',
  collection: 'categories',
  permalinkPath: 'events/category',
  notFound: 'rest-category-not-found',
  hasParent: true,
};

export const TAGS: TaxonomyInfo = {
  taxonomy: 'post_tag',
  collection: 'tags',
  permalinkPath: 'events/tag',
  notFound: 'rest-tag-not-found',
  hasParent: false,
};
