import { DateTime, FixedOffsetZone } from 'luxon';
import { EntityManager, SelectQueryBuilder } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import type { RequestContext } from '../common/http/request-context';
import { parseZone } from '../common/time/dates';
import { otherLanguage, type Language } from '../i18n/language';
import { Organizer } from '../organizers/entities/organizer.entity';
import {
  applyStatusScope,
  assertVisibleFilter,
  listStatusScope,
  StatusScope,
} from '../posts/post-access';
import { EVENT_TEXTS, textEngine, textQuery, textRows } from '../database/full-text';
import { fullTextWords } from '../posts/search';
import { CATEGORIES, TAGS } from '../terms/taxonomies';
import type { KeptTerms, TermLinksService } from '../terms/term-links.service';
import { Venue } from '../venues/entities/venue.entity';
import { eventWindow, type EventWindow } from './date-window';
import type { ListEventsQueryDto } from './dto/list-events.query.dto';
import { EventOrganizer } from './entities/event-organizer.entity';
import { EventTerm } from './entities/event-term.entity';
import { Event } from './entities/event.entity';
import { boundingBox, distanceSql, GeoArea } from './geo-area';

/** The filters of `GET /events`, checked and resolved to IDs (docs/api.md §5.1). */
export interface EventListFilters {
  scope: StatusScope;
  /** Only these IDs, ordered by ID; the window and hide_from_listings do not apply. */
  include?: number[];
  window: EventWindow;
  search?: { words: string[]; language: Language };
  categoryIds?: number[];
  tagIds?: number[];
  /** The data versions categoryIds and tagIds were read at (TermLinksService.idsForFilter). */
  termVersions?: number[];
  venueIds?: number[];
  organizerIds?: number[];
  featured?: boolean;
  ticketed?: boolean;
  parentId?: number;
  /** true: the venue has coordinates; false: it has none (or there is no venue). */
  geoloc?: boolean;
  near?: GeoArea;
  /** Only events this source owns: its keys, and the events of a series holding one. */
  externalSource?: string;
}

/**
 * The filters as what is kept or tagged per filters sees them (totals, feed
 * stamps and ETags): the term IDs, not the data versions they were read at.
 */
export function keyedFilters({
  termVersions: _readAt,
  ...filters
}: EventListFilters): Omit<EventListFilters, 'termVersions'> {
  return filters;
}

/**
 * The events matching the filters, as one query over `events e` without
 * row-multiplying joins (links are tested with EXISTS; a search joins one
 * row per matched event), so it can both be counted and paged by ID.
 * `scored`: a search also gives each event its score, for
 * `orderEvents(…, 'relevance')`.
 */
export function eventListQuery(
  manager: EntityManager,
  filters: EventListFilters,
  options: { scored?: boolean; searchPlan?: SearchPlan } = {},
): SelectQueryBuilder<Event> {
  const qb = manager.createQueryBuilder(Event, 'e');
  applyStatusScope(qb, 'e', filters.scope);
  if (filters.include) {
    qb.andWhere('e.id IN (:...include)', { include: filters.include });
  } else {
    applyWindow(qb, filters.window);
    qb.andWhere('e.hideFromListings = :hidden', { hidden: false });
  }
  if (filters.search) {
    const { words, language } = filters.search;
    if (options.searchPlan === 'window' && options.scored !== true) {
      applySearchAlongWindow(qb, words, language);
    } else applySearch(qb, words, language, options.scored === true);
  }
  if (filters.categoryIds) applyTerms(qb, 'categories', filters.categoryIds);
  if (filters.tagIds) applyTerms(qb, 'tags', filters.tagIds);
  if (filters.venueIds) qb.andWhere('e.venueId IN (:...venueIds)', { venueIds: filters.venueIds });
  if (filters.organizerIds) {
    const linked = qb
      .subQuery()
      .select('1')
      .from(EventOrganizer, 'eo')
      .where('eo.eventId = e.id')
      .andWhere('eo.organizerId IN (:...organizerIds)');
    qb.andWhere(`EXISTS ${linked.getQuery()}`, { organizerIds: filters.organizerIds });
  }
  const { featured, ticketed, parentId } = filters;
  if (featured !== undefined) qb.andWhere('e.featured = :featured', { featured });
  if (ticketed !== undefined) qb.andWhere('e.ticketed = :ticketed', { ticketed });
  if (parentId !== undefined) qb.andWhere('e.parentId = :parentId', { parentId });
  if (filters.geoloc !== undefined) {
    const located = venuesWhere(qb, 'v.geoLat IS NOT NULL AND v.geoLng IS NOT NULL');
    qb.andWhere(filters.geoloc ? located : `(e.venueId IS NULL OR NOT (${located}))`);
  }
  if (filters.near) applyNear(qb, filters.near);
  if (filters.externalSource !== undefined) applySource(qb, filters.externalSource);
  return qb;
}

/** How a list is ordered (docs/api.md §5.1). */
export type EventOrder = 'start' | 'id' | 'relevance';

/**
 * Order and page the IDs: by start, then ID; with `include`, by ID; by
 * relevance (best first, then by start) when asked with a search (its
 * query built `scored`).
 */
export function orderEvents(
  qb: SelectQueryBuilder<Event>,
  order: EventOrder,
): SelectQueryBuilder<Event> {
  if (order === 'relevance') qb.orderBy(`${MATCHED}.score`, 'DESC');
  else qb.orderBy();
  for (const key of orderKeys(order)) qb.addOrderBy(`e.${key}`, 'ASC');
  return qb;
}

/** The event properties a list is ordered by, each ascending (after the score of `relevance`). */
export function orderKeys(order: EventOrder): ReadonlyArray<'startAt' | 'id'> {
  return order === 'id' ? ['id'] : ['startAt', 'id'];
}

function applyWindow(qb: SelectQueryBuilder<Event>, window: EventWindow): void {
  const { startMin, startMax, endMin, endMax } = window;
  if (startMin !== undefined) qb.andWhere('e.startAt >= :startMin', { startMin });
  if (startMax !== undefined) qb.andWhere('e.startAt <= :startMax', { startMax });
  if (endMin !== undefined) qb.andWhere('e.endAt >= :endMin', { endMin });
  if (endMax !== undefined) qb.andWhere('e.endAt <= :endMax', { endMax });
}

/**
 * How a search is read (chosen by `chooseSearchPlan`): `matches` reads each
 * matched event by primary key and applies the window to it; `window` walks
 * the window's index in order and checks each entry against the set of
 * matched events. Both give the same rows.
 */
export type SearchPlan = 'matches' | 'window';

/**
 * Every word begins a word of the title, excerpt or description the event
 * shows: the requested language's texts, or the other one's when it has none
 * (docs/api.md §5.1). The full-text index alone finds the texts that match;
 * of those, the ones the event shows are the matched events (one row each,
 * aliased MATCHED: `id`, and `score` when `scored`), joined to the events on
 * their primary key so the window and every other filter apply to them only.
 */
function applySearch(
  qb: SelectQueryBuilder<Event>,
  words: string[],
  language: Language,
  scored: boolean,
): void {
  qb.innerJoin(`(${matchedEvents(qb, words, language, scored)})`, MATCHED, `${MATCHED}.id = e.id`);
}

/**
 * The same events as `applySearch`, as a set the window's index entries are
 * checked against (`+` keeps SQLite from driving the query by the set).
 */
function applySearchAlongWindow(
  qb: SelectQueryBuilder<Event>,
  words: string[],
  language: Language,
): void {
  qb.andWhere(`+e.id IN (SELECT sm.id FROM (${matchedEvents(qb, words, language, false)}) sm)`);
}

/** SQL: the events whose shown texts match (`id`, `score`), with the parameters set on `qb`. */
function matchedEvents(
  qb: SelectQueryBuilder<Event>,
  words: string[],
  language: Language,
  scored: boolean,
): string {
  const engine = textEngine(qb.connection);
  qb.setParameters({
    searchLanguage: language,
    searchFallback: otherLanguage(language),
    searchText: textQuery(engine, words),
  });
  const shown =
    `(t.language = :searchLanguage OR (t.language = :searchFallback AND NOT EXISTS ` +
    `(SELECT 1 FROM event_translations sl WHERE sl.event_id = t.event_id AND sl.language = :searchLanguage)))`;
  return textRows(engine, EVENT_TEXTS, 'searchText', {
    select: 't.event_id AS id',
    where: shown,
    scored,
  });
}

/** The alias of the events a search matched, joined to a searched list. */
const MATCHED = 'sm';

function applyTerms(qb: SelectQueryBuilder<Event>, name: string, termIds: number[]): void {
  const linked = qb
    .subQuery()
    .select('1')
    .from(EventTerm, `et_${name}`)
    .where(`et_${name}.eventId = e.id`)
    .andWhere(`et_${name}.termId IN (:...${name}TermIds)`);
  qb.andWhere(`EXISTS ${linked.getQuery()}`, { [`${name}TermIds`]: termIds });
}

/**
 * The events one source owns (docs/api.md §17): those holding one of its
 * keys, and every event of a series that holds one (its occurrences, also
 * detached ones, carry no key of their own). One row per event, joined on
 * the primary key like a search: the keys come from the unique key index
 * (its first column is the source), a series' events from the (series,
 * date) index.
 */
function applySource(qb: SelectQueryBuilder<Event>, source: string): void {
  const owned =
    'SELECT k.id AS id FROM events k WHERE k.external_source = :externalSource ' +
    'UNION SELECT o.id AS id FROM events ks INNER JOIN events o ON o.series_id = ks.id ' +
    'WHERE ks.external_source = :externalSource';
  qb.innerJoin(`(${owned})`, OWNED, `${OWNED}.id = e.id`, { externalSource: source });
}

/** The alias of the events a source owns, joined to a list filtered by `external_source`. */
const OWNED = 'src_owned';

/** Venues within the radius: a box the optimiser can range over, then the exact distance. */
function applyNear(qb: SelectQueryBuilder<Event>, area: GeoArea): void {
  const box = boundingBox(area);
  const conditions = ['v.geoLat BETWEEN :minLat AND :maxLat'];
  if (box.minLng !== undefined) conditions.push('v.geoLng BETWEEN :minLng AND :maxLng');
  conditions.push(`${distanceSql('v.geoLat', 'v.geoLng')} <= :radiusKm`);
  qb.andWhere(venuesWhere(qb, conditions.join(' AND ')), {
    ...box,
    geoLat: area.lat,
    geoLng: area.lng,
    radiusKm: area.radiusKm,
  });
}

/** `e.venueId IN (venues matching the condition)`. */
function venuesWhere(qb: SelectQueryBuilder<Event>, condition: string): string {
  const venues = qb.subQuery().select('v.id').from(Venue, 'v').where(condition);
  return `e.venueId IN ${venues.getQuery()}`;
}

/** Default `geoloc_radius` in km (docs/api.md §5.1). */
const DEFAULT_RADIUS_KM = 10;

/** What resolving the list filters needs: the database, the site zone, and the terms. */
export interface ListFilterDeps {
  manager: EntityManager;
  siteTimezone: string;
  terms: TermLinksService;
  /** Which kept resolutions of the term filters may be taken (none unless said). */
  keptTerms?: KeptTerms;
}

/** The list filters, checked (400 naming the parameter) and resolved to IDs. */
export async function resolveListFilters(
  query: ListEventsQueryDto,
  ctx: RequestContext,
  deps: ListFilterDeps,
): Promise<EventListFilters> {
  const scope = listStatusScope(ctx.user, query.status);
  assertTogether(query, 'geoloc_lat', 'geoloc_lng');
  if (query.geoloc_radius !== undefined && query.geoloc_lat === undefined) {
    throw ApiError.invalid('geoloc_radius', 'bothOrNeither', { other: 'geoloc_lat, geoloc_lng' });
  }
  const categories = query.categories?.length
    ? await deps.terms.idsForFilter(CATEGORIES, query.categories, 'categories', deps.keptTerms)
    : undefined;
  const tags = query.tags?.length
    ? await deps.terms.idsForFilter(TAGS, query.tags, 'tags', deps.keptTerms)
    : undefined;
  const termVersions = [categories, tags].flatMap((terms) => (terms ? [terms.version] : []));
  if (query.venue?.length)
    await assertVisibleFilter(deps.manager, Venue, query.venue, ctx.user, 'venue');
  if (query.organizer?.length)
    await assertVisibleFilter(deps.manager, Organizer, query.organizer, ctx.user, 'organizer');
  if (query.post_parent !== undefined) {
    await assertVisibleFilter(deps.manager, Event, query.post_parent, ctx.user, 'post_parent');
  }
  const words = fullTextWords(query.search ?? '');
  const siteZone = parseZone(deps.siteTimezone) ?? FixedOffsetZone.utcInstance;
  return {
    scope,
    include: query.include?.length ? query.include : undefined,
    window: eventWindow(query, siteZone, DateTime.now()),
    search: words.length > 0 ? { words, language: ctx.language } : undefined,
    categoryIds: categories?.ids,
    tagIds: tags?.ids,
    termVersions: termVersions.length > 0 ? termVersions : undefined,
    venueIds: query.venue?.length ? query.venue : undefined,
    organizerIds: query.organizer?.length ? query.organizer : undefined,
    featured: query.featured,
    ticketed: query.ticketed,
    parentId: query.post_parent,
    geoloc: query.geoloc,
    externalSource: query.external_source,
    near:
      query.geoloc_lat !== undefined && query.geoloc_lng !== undefined
        ? {
            lat: query.geoloc_lat,
            lng: query.geoloc_lng,
            radiusKm: query.geoloc_radius ?? DEFAULT_RADIUS_KM,
          }
        : undefined,
  };
}

/** Two parameters that only work together: one without the other is 400. */
function assertTogether<T extends object>(query: T, a: keyof T & string, b: keyof T & string) {
  if ((query[a] === undefined) === (query[b] === undefined)) return;
  const [sent, missing] = query[a] === undefined ? [b, a] : [a, b];
  throw ApiError.invalid(sent, 'bothOrNeither', { other: missing });
}
