import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { ApiError } from '../common/errors/api-error';
import type { RequestContext } from '../common/http/request-context';
import { targetProblem } from '../common/net/target-safety';
import { ListPage, pageWindow } from '../common/pagination/list-page';
import { nowEpoch } from '../common/time/dates';
import { appConfig } from '../config/app.config';
import { Writes } from '../writes/writes.service';
import { streamInto } from './calendar-body';
import { ImportSettingsDto } from './dto/create-import.dto';
import { ImportRecordDto, ImportWithRunsDto } from './dto/import-record.dto';
import { ListImportsQueryDto } from './dto/import-queries.dto';
import { ImportSource } from './entities/import-source.entity';
import { ImportEventsTrash } from './import-events-trash';
import { DEFAULT_IMPORT_LIMITS } from './import-item';
import type { ImportInput } from './import-input';
import { ImportRunner } from './import-runner';
import { ImportScheduler } from './import-scheduler.service';
import { ImportStore } from './import-store';
import { mapImport, mapImportWithRuns } from './import.mapper';
import { DEFAULT_REFRESH, parseRefresh } from './refresh';

/** Runs shown with an import. */
const RUNS_SHOWN = 10;
/** The parser's limit, as the 413 names it. */
const LIMIT_TEXT = '10 MiB';

/**
 * Administrators' imports (docs/api.md "Imports"): an uploaded calendar is
 * imported in the request; a URL import is stored and run at once by the
 * scheduler (202), then on its schedule.
 */
@Injectable()
export class ImportsService {
  constructor(
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
    private readonly store: ImportStore,
    private readonly runner: ImportRunner,
    private readonly scheduler: ImportScheduler,
    private readonly eventsTrash: ImportEventsTrash,
    private readonly writes: Writes,
  ) {}

  async list(query: ListImportsQueryDto): Promise<ListPage<ImportRecordDto>> {
    const window = pageWindow(query, this.config.maxPerPage);
    const [sources, total] = await this.store.list(window);
    return new ListPage('imports', sources.map(mapImport), total, window);
  }

  async get(id: number): Promise<ImportWithRunsDto> {
    // Runs first: a run's report and its import's last_* commit together, so the import read
    // after its runs is at least as new as they are.
    const runs = id > 0 ? await this.store.lastRuns(id, RUNS_SHOWN) : [];
    return mapImportWithRuns(await this.findOrFail(id), runs);
  }

  /** An upload: read, parsed and written now (201); a URL: stored and run soon (202). */
  async create(input: ImportInput, ctx: RequestContext): Promise<ImportWithRunsDto> {
    // An unchanged feed bumps no data version (docs/api.md §19): imports and runs are not cached.
    ctx.write?.bumps?.untrackedWritesUncached();
    await this.checkCategories(input.settings.categories ?? []);
    if (input.kind === 'url') return this.createFeed(input.settings, ctx);
    const startedMs = Date.now();
    const parser = this.runner.newParser();
    // A declared length over the limit is refused unread.
    const tooLarge =
      (input.declaredBytes !== undefined && input.declaredBytes > DEFAULT_IMPORT_LIMITS.maxBytes) ||
      (await streamInto(input.body, parser)) === 'too_large';
    if (tooLarge) throw new ApiError('rest_payload_too_large', { args: { limit: LIMIT_TEXT } });
    const parsed = parser.finish();
    const source = await this.insert(input.settings, null, ctx);
    const run = await this.runner.runUpload(source, parsed, startedMs, ctx.write);
    const stored = (await this.store.find(source.id)) ?? source;
    return mapImportWithRuns(stored, run ? [run] : []);
  }

  /**
   * Deletes the import and its reports; `trash`: first every event of its
   * source is trashed through the events' own write path (changes feed,
   * webhooks, series), so a DELETE that stops half-way can be sent again.
   */
  async remove(
    id: number,
    events: 'keep' | 'trash',
    ctx: RequestContext,
  ): Promise<ImportRecordDto> {
    ctx.write?.bumps?.untrackedWritesUncached();
    const source = await this.findOrFail(id);
    if (events === 'trash') await this.eventsTrash.trashSource(source.source, ctx);
    await this.writes.run(ctx.write, ({ manager }) => this.store.remove(manager, id));
    return mapImport(source);
  }

  private async createFeed(
    body: ImportSettingsDto & { url: string; refresh?: string },
    ctx: RequestContext,
  ): Promise<ImportWithRunsDto> {
    await this.checkUrl(body.url);
    const refreshSeconds = parseRefresh(body.refresh ?? DEFAULT_REFRESH) as number;
    const source = await this.insert(body, { url: body.url, refreshSeconds }, ctx);
    this.scheduler.runSoon();
    return mapImportWithRuns(source, []);
  }

  private insert(
    settings: ImportSettingsDto,
    feed: { url: string; refreshSeconds: number } | null,
    ctx: RequestContext,
  ): Promise<ImportSource> {
    return this.writes.run(ctx.write, async ({ manager }) => {
      if (feed && (await this.store.feedSourceTaken(manager, settings.source))) {
        throw new ApiError('rest_import_source_taken', { args: { source: settings.source } });
      }
      return this.store.insert(manager, {
        url: feed?.url ?? null,
        refreshSeconds: feed?.refreshSeconds ?? null,
        source: settings.source,
        feedSource: feed ? settings.source : null,
        language: ctx.language,
        categories: [...new Set(settings.categories ?? [])],
        status: settings.status ?? 'publish',
        trashRemoved: settings.trash_removed ?? true,
        authorId: ctx.user?.id ?? 0,
        etag: null,
        lastModified: null,
        // A URL import is due at once: its first run.
        nextRunMs: feed ? Date.now() : null,
        runningSinceMs: null,
        lastRunMs: null,
        lastOutcome: null,
        lastSuccessMs: null,
        createdAt: nowEpoch(),
      });
    });
  }

  private async findOrFail(id: number): Promise<ImportSource> {
    const source = id > 0 ? await this.store.find(id) : null;
    if (!source) throw new ApiError('rest-import-not-found');
    return source;
  }

  private async checkCategories(ids: number[]): Promise<void> {
    const found = await this.store.categoryIds(ids);
    if (ids.some((id) => !found.has(id))) throw ApiError.invalid('categories', 'notFound');
  }

  /** The webhooks' target rules (docs/api.md §15): scheme, credentials, a private address. */
  private async checkUrl(url: string): Promise<void> {
    const policy = this.config.webhooks;
    const problem = await targetProblem(url, policy);
    if (problem) throw ApiError.invalid('url', problem);
  }
}
