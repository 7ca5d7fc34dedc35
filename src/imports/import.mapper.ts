import { utcWire } from '../common/time/dates';
import { ImportRecordDto, ImportRunDto, ImportWithRunsDto } from './dto/import-record.dto';
import { ImportRun } from './entities/import-run.entity';
import { ImportSource } from './entities/import-source.entity';
import { refreshText } from './refresh';

const msWire = (ms: number) => utcWire(Math.floor(ms / 1000));
const maybeMsWire = (ms: number | null) => (ms === null ? null : msWire(ms));

/** The import as the API shows it. */
export function mapImport(source: ImportSource): ImportRecordDto {
  return {
    id: source.id,
    url: source.url,
    refresh: source.refreshSeconds === null ? null : refreshText(source.refreshSeconds),
    source: source.source,
    language: source.language,
    categories: source.categories,
    status: source.status,
    trash_removed: source.trashRemoved,
    author: String(source.authorId),
    created_utc: utcWire(source.createdAt),
    next_run_utc: maybeMsWire(source.nextRunMs),
    last_run_utc: maybeMsWire(source.lastRunMs),
    last_outcome: source.lastOutcome,
    last_success_utc: maybeMsWire(source.lastSuccessMs),
  };
}

export function mapImportWithRuns(source: ImportSource, runs: ImportRun[]): ImportWithRunsDto {
  return { ...mapImport(source), runs: runs.map(mapRun) };
}

/** One run's report. */
export function mapRun(run: ImportRun): ImportRunDto {
  return {
    id: run.id,
    trigger: run.cause,
    outcome: run.outcome,
    started_utc: msWire(run.startedMs),
    finished_utc: msWire(run.finishedMs),
    duration_ms: run.finishedMs - run.startedMs,
    fetch: run.fetchResult
      ? {
          outcome: run.fetchResult.outcome,
          bytes: run.fetchResult.bytes,
          http_status: run.fetchResult.http_status,
          error: run.fetchResult.error,
          detail: run.fetchResult.detail,
        }
      : null,
    refusal: run.refusal
      ? { reason: run.refusal.reason, limit: run.refusal.limit, found: run.refusal.found }
      : null,
    created: run.created,
    updated: run.updated,
    unchanged: run.unchanged,
    trashed: run.trashed,
    skipped_count: run.skippedCount,
    skipped: run.skipped.map((s) => ({
      index: s.index,
      uid: s.uid,
      reason: s.reason,
      detail: s.detail,
    })),
  };
}
