import type { Language } from '../i18n/language';
import type { SkippedVevent } from './import-item';

/*
 * What an import writes into, and what one run of it did: the contract
 * between the import writer (one parsed feed → events, in units of work) and
 * the imports resource (sources, schedules, run reports).
 */

/** Where and how one import source's items are written. */
export interface ImportTarget {
  /** The import's `source`: every record it writes carries external_id {source, UID or key}. */
  source: string;
  /** The language the feed's texts are written in. */
  language: Language;
  /** Status of events the import creates (and of those it updates from the feed). */
  status: 'publish' | 'draft';
  /** Category IDs added to every event of the feed, besides its own CATEGORIES. */
  categoryIds: number[];
  /** Trash the source's events that are no longer in the feed. */
  trashRemoved: boolean;
  /** The author of created records (the administrator who made the import). */
  authorId: number;
}

/** One run's outcome, counted per VEVENT (a series counts once). */
export interface ImportRunCounts {
  created: number;
  updated: number;
  unchanged: number;
  trashed: number;
}

export interface ImportReport extends ImportRunCounts {
  /** VEVENTs that gave no event, with their reasons. */
  skipped: SkippedVevent[];
}
