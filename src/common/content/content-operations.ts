import type { DataSource } from 'typeorm';
import { writeTransaction } from '../../database/write-transaction';
import { AccessPolicy } from '../../auth/policy';
import { ApiError } from '../errors/api-error';
import type { RequestContext } from '../http/request-context';
import { ListPage } from '../pagination/list-page';
import { nowEpoch } from '../time/dates';
import type { ContentEntity, ContentKind, ContentRef, ContentTranslation } from './content-kind';
import type { ContentMapOptions } from './content-record';
import type { ContentListQueryDto } from './content.dto';
import { findContentPage } from './content-list';
import {
  findContentOrFail,
  insertContent,
  loadContent,
  updateStoredContent,
} from './content-store';
import { assertCanCreate, ContentWrite, postColumns } from './content-write';
import { assertCanEdit, assertCanSee } from './visibility';

/*
 * The request flows venues and organizers share (contract §2–§7), each
 * "look up and authorise → write → map". The services compose these with
 * their kind; what differs (fields, DTOs, JSON-LD, event links) is in the kind.
 */

/** What the flows need besides the kind: the database and three settings. */
export interface ContentEnv {
  dataSource: DataSource;
  config: { publicSiteUrl: string; siteTimezone: string; maxPerPage: number };
}

type Kind<E extends ContentEntity<T>, T extends ContentTranslation, R> = ContentKind<E, T, R>;

export async function listContent<E extends ContentEntity<T>, T extends ContentTranslation, R>(
  env: ContentEnv,
  kind: Kind<E, T, R>,
  query: ContentListQueryDto,
  ctx: RequestContext,
): Promise<ListPage<R>> {
  const edit = editContext(query.context, ctx);
  const page = await findContentPage(
    env.dataSource.manager,
    kind,
    query,
    ctx,
    env.config.maxPerPage,
  );
  const items = page.items.map((item) =>
    kind.map(
      item,
      mapOptions(env, kind, ctx, {
        withTranslations: edit && AccessPolicy.canEditItem(ctx.user, item),
      }),
    ),
  );
  return new ListPage(kind.collection, items, page.total, page.window);
}

/** Single read (contract §4): 404, 403 `<kind>-not-accessible`, or the record with JSON-LD. */
export async function readContent<E extends ContentEntity<T>, T extends ContentTranslation, R>(
  env: ContentEnv,
  kind: Kind<E, T, R>,
  ref: ContentRef,
  ctx: RequestContext,
  context: 'view' | 'edit' | undefined,
): Promise<R> {
  const edit = editContext(context, ctx);
  const item = await findContentOrFail(env.dataSource.manager, kind, ref, ctx.language);
  assertCanSee(ctx.user, item, { notAccessible: kind.errors.notAccessible });
  if (edit) assertCanEdit(ctx.user, item);
  return kind.map(item, mapOptions(env, kind, ctx, { withJsonLd: true, withTranslations: edit }));
}

export async function createContent<E extends ContentEntity<T>, T extends ContentTranslation, R>(
  env: ContentEnv,
  kind: Kind<E, T, R>,
  write: ContentWrite<E>,
  ctx: RequestContext,
): Promise<R> {
  assertCanCreate(ctx.user);
  const id = await writeTransaction(env.dataSource, (manager) =>
    insertContent(manager, kind, write, ctx, env.config.siteTimezone),
  );
  return reload(env, kind, id, ctx);
}

/**
 * Partial update (POST, PUT and PATCH alike). Sending `status` restores a
 * trashed record; sending a translated field in a new language adds it.
 */
export async function updateContent<E extends ContentEntity<T>, T extends ContentTranslation, R>(
  env: ContentEnv,
  kind: Kind<E, T, R>,
  ref: ContentRef,
  write: ContentWrite<E>,
  ctx: RequestContext,
): Promise<R> {
  const current = await findContentOrFail(env.dataSource.manager, kind, ref, ctx.language);
  assertCanEdit(ctx.user, current);
  const columns = {
    ...write.columns,
    ...postColumns(write.post, ctx, env.config.siteTimezone, false),
  } as Partial<E>;
  await writeTransaction(env.dataSource, async (manager) => {
    // Re-read inside the transaction: a retry must not reuse texts changed by the failed attempt.
    const item = await findContentOrFail(manager, kind, { id: current.id }, ctx.language);
    await updateStoredContent(manager, kind, item, write.texts, columns, ctx.language);
  });
  return reload(env, kind, current.id, ctx);
}

/**
 * DELETE (contract §7): trash (410 when already trashed) or, with `force`
 * (editors+), delete for good. Either way the record leaves its events, in
 * the same transaction.
 */
export async function removeContent<E extends ContentEntity<T>, T extends ContentTranslation, R>(
  env: ContentEnv,
  kind: Kind<E, T, R>,
  ref: ContentRef,
  force: boolean | undefined,
  ctx: RequestContext,
): Promise<R> {
  const item = await findContentOrFail(env.dataSource.manager, kind, ref, ctx.language);
  assertCanEdit(ctx.user, item);
  if (force && !AccessPolicy.canForceDelete(ctx.user)) throw ApiError.forbidden();
  if (!force && item.status === 'trash') throw new ApiError(kind.errors.inTrash);
  const now = nowEpoch();
  await writeTransaction(env.dataSource, async (manager) => {
    await kind.unlinkEvents(manager, item.id);
    if (force) {
      await manager.delete(kind.translation, { [kind.ownerKey]: item.id });
      await manager.delete(kind.entity, item.id);
    } else {
      await manager.update(kind.entity, item.id, { status: 'trash', modifiedAt: now } as object);
    }
  });
  if (!force) Object.assign(item, { status: 'trash', modifiedAt: now });
  return kind.map(item, mapOptions(env, kind, ctx, {}));
}

/** Records for embedding in events: no JSON-LD, no translations; one query. */
export async function contentRecordsByIds<
  E extends ContentEntity<T>,
  T extends ContentTranslation,
  R,
>(
  env: ContentEnv,
  kind: Kind<E, T, R>,
  ids: number[],
  ctx: RequestContext,
): Promise<Map<number, R>> {
  const items = await loadContent(env.dataSource.manager, kind, [...new Set(ids)]);
  const options = mapOptions(env, kind, ctx, {});
  return new Map([...items].map(([id, item]) => [id, kind.map(item, options)]));
}

async function reload<E extends ContentEntity<T>, T extends ContentTranslation, R>(
  env: ContentEnv,
  kind: Kind<E, T, R>,
  id: number,
  ctx: RequestContext,
): Promise<R> {
  const item = await findContentOrFail(env.dataSource.manager, kind, { id }, ctx.language);
  return kind.map(item, mapOptions(env, kind, ctx, {}));
}

/** `context=edit` needs a caller (401); whether they may edit is checked per record. */
function editContext(context: 'view' | 'edit' | undefined, ctx: RequestContext): boolean {
  if (context !== 'edit') return false;
  if (!ctx.user) throw ApiError.unauthorized();
  return true;
}

function mapOptions<E extends ContentEntity<T>, T extends ContentTranslation, R>(
  env: ContentEnv,
  kind: Kind<E, T, R>,
  ctx: RequestContext,
  extra: Partial<Pick<ContentMapOptions, 'withJsonLd' | 'withTranslations'>>,
): ContentMapOptions {
  return {
    language: ctx.language,
    apiUrl: ctx.apiUrl,
    siteUrl: env.config.publicSiteUrl,
    siteZone: env.config.siteTimezone,
    names: kind,
    withJsonLd: extra.withJsonLd ?? false,
    withTranslations: extra.withTranslations ?? false,
  };
}
