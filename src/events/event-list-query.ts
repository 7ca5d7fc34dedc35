import { Brackets, EntityManager, SelectQueryBuilder } from 'typeorm';
import { LIKE_ESCAPE, likeContains } from '../posts/search';
import { applyStatusScope, StatusScope } from '../posts/post-access';
import { otherLanguage, type Language } from '../i18n/language';
import { Venue } from '../venues/entities/venue.entity';
import type { EventWindow } from './date-window';
import { EventOrganizer } from './entities/event-organizer.entity';
import { EventTerm } from './entities/event-term.entity';
import { EventTranslation } from './entities/event-translation.entity';
import { Event } from './entities/event.entity';
import { boundingBox, distanceSql, GeoArea } from './geo-area';

/** The filters of `GET /events`, checked and resolved to IDs (contract §5.1). */
export interface EventListFilters {
  scope: StatusScope;
  /** Only these IDs, ordered by ID; the window and hide_from_listings do not apply. */
  include?: number[];
  window: EventWindow;
  search?: { words: string[]; language: Language };
  categoryIds?: number[];
  tagIds?: number[];
  venueIds?: number[];
  organizerIds?: number[];
  featured?: boolean;
  ticketed?: boolean;
  parentId?: number;
  /** true: the venue has coordinates; false: it has none (or there is no venue). */
  geoloc?: boolean;
  near?: GeoArea;
}

/**
 * The events matching the filters, as one query over `events e` without
 * row-multiplying joins (links are tested with EXISTS), so it can both be
 * counted and paged by ID.
 */
export function eventListQuery(
  manager: EntityManager,
  filters: EventListFilters,
): SelectQueryBuilder<Event> {
  const qb = manager.createQueryBuilder(Event, 'e');
  applyStatusScope(qb, 'e', filters.scope);
  if (filters.include) {
    qb.andWhere('e.id IN (:...include)', { include: filters.include });
  } else {
    applyWindow(qb, filters.window);
    qb.andWhere('e.hideFromListings = :hidden', { hidden: false });
  }
  if (filters.search) applySearch(qb, filters.search.words, filters.search.language);
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
  return qb;
}

/** Order and page the IDs: by start, then ID; with `include`, by ID. */
export function orderEvents(
  qb: SelectQueryBuilder<Event>,
  byId: boolean,
): SelectQueryBuilder<Event> {
  return byId
    ? qb.orderBy('e.id', 'ASC')
    : qb.orderBy('e.startAt', 'ASC').addOrderBy('e.id', 'ASC');
}

function applyWindow(qb: SelectQueryBuilder<Event>, window: EventWindow): void {
  const { startMin, startMax, endMin, endMax } = window;
  if (startMin !== undefined) qb.andWhere('e.startAt >= :startMin', { startMin });
  if (startMax !== undefined) qb.andWhere('e.startAt <= :startMax', { startMax });
  if (endMin !== undefined) qb.andWhere('e.endAt >= :endMin', { endMin });
  if (endMax !== undefined) qb.andWhere('e.endAt <= :endMax', { endMax });
}

/**
 * Every word in the title, excerpt or description the event shows: those of
 * the requested language, or the other one's when it has none.
 */
function applySearch(qb: SelectQueryBuilder<Event>, words: string[], language: Language): void {
  qb.leftJoin(EventTranslation, 'tr', 'tr.eventId = e.id AND tr.language = :searchLanguage', {
    searchLanguage: language,
  }).leftJoin(
    EventTranslation,
    'fb',
    'fb.eventId = e.id AND fb.language = :searchFallback AND tr.id IS NULL',
    { searchFallback: otherLanguage(language) },
  );
  const fields = ['title', 'excerpt', 'description'].map(
    (field) => `LOWER(COALESCE(tr.${field}, fb.${field}))`,
  );
  words.forEach((word, i) => {
    qb.andWhere(
      new Brackets((any) => {
        for (const field of fields) any.orWhere(`${field} LIKE :searchWord${i} ${LIKE_ESCAPE}`);
      }),
      { [`searchWord${i}`]: likeContains(word.toLowerCase()) },
    );
  });
}

function applyTerms(qb: SelectQueryBuilder<Event>, name: string, termIds: number[]): void {
  const linked = qb
    .subQuery()
    .select('1')
    .from(EventTerm, `et_${name}`)
    .where(`et_${name}.eventId = e.id`)
    .andWhere(`et_${name}.termId IN (:...${name}TermIds)`);
  qb.andWhere(`EXISTS ${linked.getQuery()}`, { [`${name}TermIds`]: termIds });
}

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
