import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';
import { LANGUAGES } from '../../i18n/language';
import { RUN_CAUSES } from '../entities/import-run.entity';
import { RUN_OUTCOMES } from '../entities/import-source.entity';
import { IMPORT_STATUSES } from './create-import.dto';

const SKIP_REASONS = [
  'malformed',
  'missing_uid',
  'missing_start',
  'missing_summary',
  'bad_dates',
  'unknown_timezone',
  'unsupported_recurrence',
  'property_too_long',
  'duplicate',
  // Given by the writer:
  'no_occurrence',
  'rejected',
];
const REFUSAL_REASONS = ['too_large', 'too_many_events', 'not_icalendar'];
const FETCH_FAILURES = [
  'invalid_url',
  'http_not_allowed',
  'private_target',
  'too_many_redirects',
  'too_large',
  'timeout',
  'http_status',
  'network',
];

/** A VEVENT a run took nothing from. */
export class SkippedVeventDto {
  /** Its position among the feed's VEVENTs, from 1; 0 for an item the writer skipped (its UID names it). */
  @ApiProperty({ type: 'integer', minimum: 0 })
  index: number;
  /** Its UID when one could be read. */
  @ApiProperty({ type: 'string', nullable: true, maxLength: 255 })
  uid: string | null;
  @ApiProperty({ enum: SKIP_REASONS })
  reason: string;
  /** What was wrong, in English. */
  @ApiProperty({ maxLength: 200 })
  detail: string;
}

/** Why the whole feed was refused: nothing was imported, nothing trashed. */
export interface ImportRefusalDto {
  reason: string;
  limit: number | null;
  found: number;
}

/** What fetching the feed came to. */
export interface ImportFetchDto {
  outcome: string;
  bytes: number | null;
  http_status: number | null;
  error: string | null;
  detail: string | null;
}

const nullableInteger = (description: string) => ({
  type: 'integer' as const,
  nullable: true,
  description,
});

/** Nullable objects are written inline: a nullable `$ref` cannot take null in OpenAPI 3.0. */
const REFUSAL_SCHEMA: ApiPropertyOptions = {
  type: 'object',
  nullable: true,
  additionalProperties: false,
  required: ['reason', 'limit', 'found'],
  description:
    'Why the whole feed was refused (nothing imported, nothing trashed); null when it was not.',
  properties: {
    reason: { type: 'string', enum: REFUSAL_REASONS },
    limit: nullableInteger('The limit passed (bytes or VEVENTs).'),
    found: { type: 'integer', description: 'What the feed had, as far as it was read.' },
  },
};

const FETCH_SCHEMA: ApiPropertyOptions = {
  type: 'object',
  nullable: true,
  additionalProperties: false,
  required: ['outcome', 'bytes', 'http_status', 'error', 'detail'],
  description: 'The fetch of a URL import; null for an upload.',
  properties: {
    outcome: {
      type: 'string',
      enum: ['fetched', 'not_modified', 'failed'],
      description: '`not_modified`: the server answered 304 to If-None-Match / If-Modified-Since.',
    },
    bytes: nullableInteger('Bytes of the body read.'),
    http_status: nullableInteger('The status of a failed answer (`http_status`).'),
    error: { type: 'string', nullable: true, enum: [...FETCH_FAILURES, null] },
    detail: {
      type: 'string',
      nullable: true,
      maxLength: 255,
      description: 'What went wrong, in English.',
    },
  },
};

/** One run of an import and what it did. */
export class ImportRunDto {
  id: number;
  /** `upload`: the uploaded calendar; `created`: a URL import's first run; `schedule`: a refresh. */
  @ApiProperty({ enum: RUN_CAUSES })
  trigger: string;
  /**
   * `imported`: the feed was read and written; `not_modified`: the feed had not changed (304);
   * `refused`: the feed was refused as a whole; `fetch_failed`: it could not be fetched;
   * `failed`: writing failed (logged), nothing of the run is reported.
   */
  @ApiProperty({ enum: RUN_OUTCOMES })
  outcome: string;
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  started_utc: string;
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  finished_utc: string;
  @ApiProperty({ type: 'integer', minimum: 0 })
  duration_ms: number;
  @ApiProperty(FETCH_SCHEMA)
  fetch: ImportFetchDto | null;
  @ApiProperty(REFUSAL_SCHEMA)
  refusal: ImportRefusalDto | null;
  /** Events created (a series counts once). */
  @ApiProperty({ type: 'integer', minimum: 0 })
  created: number;
  @ApiProperty({ type: 'integer', minimum: 0 })
  updated: number;
  /** Events the feed names whose content had not changed: nothing was written for them. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  unchanged: number;
  /** Events trashed: no longer in the feed (trash_removed) or CANCELLED in it. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  trashed: number;
  /** Every VEVENT skipped; `skipped` lists the first 1,000. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  skipped_count: number;
  @ApiProperty({ type: [SkippedVeventDto], maxItems: 1000 })
  skipped: SkippedVeventDto[];
}

/** An import as administrators read it. */
export class ImportRecordDto {
  id: number;
  /** The feed; null for an uploaded calendar. */
  @ApiProperty({ type: 'string', nullable: true })
  url: string | null;
  /** How often the feed is fetched again; null for an upload. */
  @ApiProperty({ type: 'string', nullable: true, example: '1h' })
  refresh: string | null;
  source: string;
  @ApiProperty({ enum: LANGUAGES })
  language: string;
  @ApiProperty({ type: 'array', items: { type: 'integer' } })
  categories: number[];
  @ApiProperty({ enum: IMPORT_STATUSES })
  status: string;
  trash_removed: boolean;
  /** The administrator who made it (the author of the events it creates). */
  author: string;
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  created_utc: string;
  /** When the next refresh is due (UTC); null for an upload. */
  @ApiProperty({ type: 'string', nullable: true })
  next_run_utc: string | null;
  /** When the last run ended (UTC); null before the first. */
  @ApiProperty({ type: 'string', nullable: true })
  last_run_utc: string | null;
  @ApiProperty({ type: 'string', nullable: true, enum: [...RUN_OUTCOMES, null] })
  last_outcome: string | null;
  /** When the last run that imported or found the feed unchanged ended (UTC). */
  @ApiProperty({ type: 'string', nullable: true })
  last_success_utc: string | null;
}

/** An import with its last runs, newest first (at most 10). */
export class ImportWithRunsDto extends ImportRecordDto {
  @ApiProperty({ type: [ImportRunDto], maxItems: 10 })
  runs: ImportRunDto[];
}
