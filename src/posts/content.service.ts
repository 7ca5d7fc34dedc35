import { preReadManager } from '../common/http/write-request';
import type { OnModuleInit } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { DataSource, EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { AccessPolicy, type PostStatus } from '../auth/policy';
import { ApiError } from '../common/errors/api-error';
import { SearchGate } from '../common/limits/search-gate';
import type { RequestContext } from '../common/http/request-context';
import type { Tagged } from '../common/http/tagged-record';
import { recordTag } from '../common/http/record-tag';
import { writeAnswer } from '../common/http/write-answer';
import { assertPrecondition } from '../common/http/write-precondition';
import { cachedRecords, type LinkedRecordStore } from '../common/records/linked-record-cache';
import type { RecordReaders, RecordsById } from '../common/records/record-readers';
import { keptOrLoaded } from '../database/kept-rows';
import { lockRow } from '../database/row-lock';
import { ListPage } from '../common/pagination/list-page';
import { nowEpoch } from '../common/time/dates';
import type { appConfig } from '../config/app.config';
import { insertRow } from '../database/entity-inserts';
import { linkedEventChanges, touchLinkedEvents, unlinkEvents } from '../database/event-links';
import type { WriteUnit } from '../writes/write-unit';
import type { Writes } from '../writes/writes.service';
import type { ContentEntity, ContentKind, ContentTranslation, ContentWrite } from './content-kind';
import { findContentPage } from './content-list';
import type { ContentMapOptions } from './content-record';
import type { ContentListQueryDto } from './dto/content.dto';
import { assertExternalKeyFree } from './external-keys';
import { findByReference, findReusable, validateInline } from './inline-content';
import {
  assertCanCreate,
  assertCanEdit,
  assertCanSee,
  editContext,
  visibilityMoves,
} from './post-access';
import { findPostOrFail, loadPosts, PostRef, writePostTexts } from './post-store';
import { postColumns } from './post-write';
import { fullTextWords } from './search';

/**
 * The request flows venues and organizers share (docs/api.md §2–§7), each
 * "look up and authorise → write → map". VenuesService and OrganizersService
 * extend it with their kind (tables, fields, mapper) and their event links.
 */
export abstract class ContentService<
  E extends ContentEntity<T>,
  T extends ContentTranslation,
  R extends { author: string; status: PostStatus },
  D extends object,
> implements OnModuleInit {
  protected constructor(
    protected readonly dataSource: DataSource,
    protected readonly config: ConfigType<typeof appConfig>,
    protected readonly kind: ContentKind<E, T, R, D>,
    protected readonly writes: Writes,
    private readonly readers: RecordReaders,
    private readonly searchGate: SearchGate,
  ) {}

  /** Registers how records of this kind are read by ID (RecordReaders). */
  onModuleInit(): void {
    const { collection } = this.kind;
    this.readers.register([this.kind.titleWire], {
      feed: (ids, ctx, linked) => this.feedRecords(ids, ctx, linked),
      edit: (manager, ids, ctx, kept) =>
        // A write's kept rows of this kind are rows of its entity.
        this.editRecords(manager, ids, ctx, kept?.[collection] as ReadonlyMap<number, E>),
      get: (id, ctx) => this.get({ id }, ctx),
    });
  }

  async list(query: ContentListQueryDto, ctx: RequestContext): Promise<ListPage<R>> {
    const edit = editContext(query.context, ctx);
    const findPage = () =>
      findContentPage(this.dataSource.manager, this.kind, query, ctx, this.config.maxPerPage);
    const page = await this.searchGate.run(fullTextWords(query.search ?? '').length > 0, findPage);
    const items = page.items.map((item) =>
      this.kind.map(
        item,
        this.mapOptions(ctx, {
          withTranslations: edit && AccessPolicy.canEditItem(ctx.user, item),
        }),
      ),
    );
    return new ListPage(this.kind.collection, items, page.total, page.window);
  }

  /** Single read (docs/api.md §4): 404, 403 `<kind>-not-accessible`, or the record with JSON-LD. */
  async get(ref: PostRef, ctx: RequestContext, context?: 'view' | 'edit'): Promise<R> {
    const edit = editContext(context, ctx);
    const item = await findPostOrFail(this.dataSource.manager, this.kind, ref, ctx.language);
    assertCanSee(ctx.user, item, { notAccessible: this.kind.errors.notAccessible });
    if (edit) assertCanEdit(ctx.user, item);
    return this.kind.map(item, this.mapOptions(ctx, { withJsonLd: true, withTranslations: edit }));
  }

  async create(input: D, ctx: RequestContext): Promise<Tagged<R>> {
    assertCanCreate(ctx.user);
    const write = this.kind.write(input);
    const item = await this.writes.run(ctx.write, async (unit) =>
      this.readItem(unit.manager, await this.insert(unit, write, ctx), ctx),
    );
    return this.answerOf(item, ctx);
  }

  /**
   * Partial update (POST, PUT and PATCH alike). Sending `status` restores a
   * trashed record; sending a translated field in a new language adds it.
   */
  async update(ref: PostRef, input: D, ctx: RequestContext): Promise<Tagged<R>> {
    const write = this.kind.write(input);
    const current = await findPostOrFail(
      preReadManager(ctx.write, this.dataSource.manager),
      this.kind,
      ref,
      ctx.language,
    );
    assertCanEdit(ctx.user, current);
    const columns = {
      ...write.columns,
      ...postColumns(write.post, ctx, this.config.siteTimezone, false),
    } as QueryDeepPartialEntity<E>;
    const written = await this.writes.run(ctx.write, async (unit) => {
      const { manager } = unit;
      await lockRow(manager, this.kind.entity, current.id);
      await assertPrecondition(ctx.precondition, () => this.readRecord(manager, current.id, ctx));
      // Re-read inside the transaction: a retry must not reuse texts changed by the failed attempt.
      const item = await findPostOrFail(manager, this.kind, { id: current.id }, ctx.language);
      await assertExternalKeyFree(manager, this.kind.entity, write.columns, item.id);
      await writePostTexts(manager, this.kind, item, write.texts, ctx.language);
      await manager.update(this.kind.entity, item.id, columns);
      const kind = this.kind.titleWire;
      await touchLinkedEvents(manager, kind, item.id, nowEpoch());
      unit.record([{ kind, id: item.id, action: 'updated' }]);
      // Events embed the record only for callers who may see it: announce them when that moves.
      if (visibilityMoves(item, columns as { status?: string; authorId?: number }))
        unit.record(await linkedEventChanges(manager, kind, item.id, { via: true }));
      return this.readItem(manager, item.id, ctx);
    });
    return this.answerOf(written, ctx);
  }

  /**
   * DELETE (docs/api.md §7): trash (410 when already trashed) or, with `force`
   * (editors+), delete for good. Either way the record leaves its events, in
   * the same transaction.
   */
  async remove(ref: PostRef, force: boolean | undefined, ctx: RequestContext): Promise<Tagged<R>> {
    const { kind } = this;
    const item = await findPostOrFail(
      preReadManager(ctx.write, this.dataSource.manager),
      kind,
      ref,
      ctx.language,
    );
    assertCanEdit(ctx.user, item);
    if (force && !AccessPolicy.canForceDelete(ctx.user)) throw ApiError.forbidden();
    if (!force && item.status === 'trash') throw new ApiError(kind.errors.inTrash);
    const now = nowEpoch();
    const etag = await this.writes.run(ctx.write, async (unit) => {
      const { manager } = unit;
      await lockRow(manager, kind.entity, item.id);
      await assertPrecondition(ctx.precondition, () => this.readRecord(manager, item.id, ctx));
      unit.record([
        ...(await linkedEventChanges(manager, kind.titleWire, item.id)),
        { kind: kind.titleWire, id: item.id, action: 'deleted', permanent: Boolean(force) },
      ]);
      await touchLinkedEvents(manager, kind.titleWire, item.id, now);
      await unlinkEvents(manager, kind.titleWire, item.id);
      if (force) {
        await manager.delete(kind.translation, { [kind.ownerKey]: item.id });
        await manager.delete(kind.entity, item.id);
        // Gone for good: no GET of it has an ETag any more.
        return undefined;
      }
      await manager.update(kind.entity, item.id, { status: 'trash', modifiedAt: now } as object);
      return recordTag(await this.readRecord(manager, item.id, ctx));
    });
    if (!force) Object.assign(item, { status: 'trash', modifiedAt: now });
    return { record: kind.map(item, this.mapOptions(ctx, {})), etag };
  }

  /** Records for embedding in events, in ctx.language with fallback: no JSON-LD, no translations; one query. */
  async recordsByIds(
    ids: number[],
    ctx: RequestContext,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<Map<number, R>> {
    return this.embeddedRecords(await this.rowsByIds(manager, ids), ctx);
  }

  /**
   * Records as the changes feed shows them (docs/api.md §12): as events
   * embed them (from `linked` where it has them), only those the caller may
   * read by ID; trashed ones count as gone.
   */
  private async feedRecords(
    ids: number[],
    ctx: RequestContext,
    linked?: LinkedRecordStore,
  ): Promise<RecordsById> {
    const records = await cachedRecords<object>(
      linked,
      linked?.[this.kind.collection],
      ids,
      (missing) => this.recordsByIds(missing, ctx),
    );
    return new Map(
      [...records].filter(([, record]) => {
        const { author, status } = record as R;
        return (
          status !== 'trash' &&
          AccessPolicy.canSeeItem(ctx.user, { authorId: Number(author), status })
        );
      }),
    );
  }

  /** The rows of records by ID with their translations, in one query. */
  rowsByIds(manager: EntityManager, ids: number[]): Promise<Map<number, E>> {
    return loadPosts(manager, this.kind, [...new Set(ids)]);
  }

  /** Rows mapped as recordsByIds maps them. */
  embeddedRecords(items: ReadonlyMap<number, E>, ctx: RequestContext): Map<number, R> {
    const options = this.mapOptions(ctx, {});
    return new Map([...items].map(([id, item]) => [id, this.kind.map(item, options)]));
  }

  /**
   * Records as their single read with `context=edit` shows them to a caller
   * who may edit them (JSON-LD and `translations`), trashed ones included,
   * read through `manager` (a write's transaction: its uncommitted state).
   * `rows`: the write's own rows of them, kept in its unit (see
   * WriteUnit.keep); the records they hold are not read again.
   */
  async editRecords(
    manager: EntityManager,
    ids: number[],
    ctx: RequestContext,
    rows?: ReadonlyMap<number, E>,
  ): Promise<Map<number, R>> {
    const items = await keptOrLoaded(ids, rows, (missing) => this.rowsByIds(manager, missing));
    const options = this.mapOptions(ctx, { withJsonLd: true, withTranslations: true });
    return new Map([...items].map(([id, item]) => [id, this.kind.map(item, options)]));
  }

  /**
   * The ID for an inline object of an event body (docs/api.md §6), inside the
   * event's transaction: an existing record that matches it (see
   * findReusable), or a new one for callers who may create (else 403).
   * Invalid fields are 400 `<kind>.<field>`.
   */
  protected async resolveInline(
    unit: WriteUnit,
    value: Record<string, unknown>,
    ctx: RequestContext,
  ): Promise<number> {
    const byKey = await findByReference(unit.manager, this.kind, value);
    if (byKey !== undefined) return byKey;
    const dto = await validateInline(this.kind.inline.dto, value, this.kind.titleWire);
    const write = this.kind.write(dto);
    const existing = await findReusable(unit.manager, this.kind, write);
    if (existing !== undefined) return existing;
    assertCanCreate(ctx.user);
    return this.insert(unit, write, ctx);
  }

  /**
   * Throws 400 `<kind>: notFound` unless every ID names a record that is not
   * trashed: one query (a bulk create checks all its events' references at once).
   */
  async assertUsable(manager: EntityManager, ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    // Plain SQL: every event write that names one sends it, and the query builder cost more CPU than its round trip.
    const table = manager.connection.getMetadata(this.kind.entity).tableName;
    const [{ found }] = (await manager.query(
      `SELECT COUNT(*) AS found FROM ${manager.connection.driver.escape(table)} ` +
        `WHERE id IN (${ids.map(() => '?').join(', ')}) AND status <> ?`,
      [...ids, 'trash'],
    )) as Array<{ found: number | string }>;
    if (Number(found) !== new Set(ids).size)
      throw ApiError.invalid(this.kind.titleWire, 'notFound');
  }

  /** Inserts a record and its first translation (in the request's language); returns its ID. */
  private async insert(
    unit: WriteUnit,
    write: ContentWrite<E>,
    ctx: RequestContext,
  ): Promise<number> {
    const { manager } = unit;
    const columns = {
      ...write.columns,
      ...postColumns(write.post, ctx, this.config.siteTimezone, true),
    };
    await assertExternalKeyFree(manager, this.kind.entity, write.columns, undefined);
    const item = {
      id: await insertRow(manager, this.kind.entity, columns as Partial<E>),
      translations: [] as T[],
    };
    await writePostTexts(manager, this.kind, item, write.texts, ctx.language);
    unit.record([{ kind: this.kind.titleWire, id: item.id, action: 'created' }]);
    return item.id;
  }

  /**
   * The record as a GET by ID without `context` shows it to the caller, read
   * on `manager` (a write's transaction): what its ETag hashes.
   */
  private async readRecord(manager: EntityManager, id: number, ctx: RequestContext): Promise<R> {
    return this.recordOf(await this.readItem(manager, id, ctx), ctx);
  }

  private readItem(manager: EntityManager, id: number, ctx: RequestContext): Promise<E> {
    return findPostOrFail(manager, this.kind, { id }, ctx.language);
  }

  private recordOf(item: E, ctx: RequestContext): R {
    return this.kind.map(item, this.mapOptions(ctx, { withJsonLd: true }));
  }

  /**
   * A write's answer and ETag (writeAnswer) from the record it read at the
   * end of its transaction, built after COMMIT (see EventWrites.answerOf).
   */
  private answerOf(item: E, ctx: RequestContext): Tagged<R> {
    const { answer, etag, bytes } = writeAnswer(
      this.recordOf(item, ctx) as R & { json_ld?: unknown },
    );
    return { record: answer, etag, bytes };
  }

  private mapOptions(
    ctx: RequestContext,
    extra: Partial<Pick<ContentMapOptions, 'withJsonLd' | 'withTranslations'>>,
  ): ContentMapOptions {
    return {
      language: ctx.language,
      apiUrl: ctx.apiUrl,
      siteUrl: this.config.publicSiteUrl,
      siteZone: this.config.siteTimezone,
      names: this.kind,
      withJsonLd: extra.withJsonLd ?? false,
      withTranslations: extra.withTranslations ?? false,
    };
  }
}
