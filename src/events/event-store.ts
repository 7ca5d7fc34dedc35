import { EntityManager } from 'typeorm';
import type { ContentRef } from '../common/content/content-kind';
import { freeSlug, toSlug } from '../common/content/slugs';
import { applyTranslatedFields } from '../common/content/translations';
import { ApiError } from '../common/errors/api-error';
import { recordsWithTranslations } from '../database/entity-rows';
import { otherLanguage, type Language } from '../i18n/language';
import { Term } from '../terms/entities/term.entity';
import { CATEGORIES, TAGS, TaxonomyInfo } from '../terms/taxonomies';
import { EventOrganizer } from './entities/event-organizer.entity';
import { EventTerm } from './entities/event-term.entity';
import { EventTranslation } from './entities/event-translation.entity';
import { Event } from './entities/event.entity';

/*
 * Storage of events: the event row, one translation row per language, and
 * the link rows to organizers and terms. Writers pass their transaction's manager.
 */

/** An event's links as a write resolved them; undefined = left unchanged. */
export interface LinkChanges {
  venueId: number | null | undefined;
  organizerIds: number[] | undefined;
  categoryIds: number[] | undefined;
  tagIds: number[] | undefined;
}

/** The translated fields of a write. */
export interface EventTextsInput {
  title?: string;
  description?: string;
  excerpt?: string;
  slug?: string;
}

/** Events with their translations by ID, in two queries side by side. */
export async function loadEvents(
  manager: EntityManager,
  ids: number[],
): Promise<Map<number, Event>> {
  return recordsWithTranslations(manager, Event, ids);
}

/**
 * The ID of the event a path names; 0 when no event has the slug. A slug is
 * looked up in the request's language first, then in the other (contract §2).
 */
export async function findEventId(
  manager: EntityManager,
  ref: ContentRef,
  language: Language,
): Promise<number> {
  if ('id' in ref) return ref.id;
  if (ref.slug === '') return 0;
  for (const candidate of [language, otherLanguage(language)]) {
    const row = await manager.findOne(EventTranslation, {
      where: { language: candidate, slug: ref.slug },
      select: { id: true, eventId: true },
    });
    if (row) return row.eventId;
  }
  return 0;
}

/** The event a path names, with its translations, or 404. */
export async function findEventOrFail(
  manager: EntityManager,
  ref: ContentRef,
  language: Language,
): Promise<Event> {
  const id = await findEventId(manager, ref, language);
  const event = id ? (await loadEvents(manager, [id])).get(id) : undefined;
  if (!event || event.translations.length === 0) throw new ApiError('rest-event-not-found');
  return event;
}

/**
 * Applies the texts of a write to the translation in `language` (adding it
 * when new; then the title is required) and gives it a free slug when the
 * write sent one or the translation is new.
 */
export async function writeEventTexts(
  manager: EntityManager,
  event: Event,
  texts: EventTextsInput,
  language: Language,
): Promise<void> {
  const isNew = !event.translations.some((t) => t.language === language);
  const translation = applyTranslatedFields(
    event.translations,
    language,
    {
      title: texts.title,
      description: texts.description,
      excerpt: texts.excerpt,
      slug: texts.slug,
    },
    { field: 'title', wireName: 'title' },
    () => manager.create(EventTranslation, { eventId: event.id, description: null, excerpt: null }),
  );
  if (!translation) return;
  if (texts.slug !== undefined || isNew) {
    const base = toSlug(texts.slug || translation.title, 'event');
    translation.slug = await freeSlug(
      manager,
      EventTranslation,
      'eventId',
      { language },
      base,
      event.id,
    );
  }
  await manager.save(EventTranslation, translation);
}

/** Replaces the links the write sent; a category change leaves the tags alone and vice versa. */
export async function writeEventLinks(
  manager: EntityManager,
  eventId: number,
  links: LinkChanges,
): Promise<void> {
  if (links.organizerIds) {
    await manager.delete(EventOrganizer, { eventId });
    if (links.organizerIds.length > 0) {
      await manager.insert(
        EventOrganizer,
        links.organizerIds.map((organizerId, position) => ({ eventId, organizerId, position })),
      );
    }
  }
  const terms: Array<[TaxonomyInfo, number[] | undefined]> = [
    [CATEGORIES, links.categoryIds],
    [TAGS, links.tagIds],
  ];
  for (const [info, termIds] of terms) {
    if (!termIds) continue;
    const ofTaxonomy = manager
      .createQueryBuilder()
      .subQuery()
      .select('t.id')
      .from(Term, 't')
      .where('t.taxonomy = :taxonomy')
      .getQuery();
    await manager
      .createQueryBuilder()
      .delete()
      .from(EventTerm)
      .where('event_id = :eventId', { eventId })
      .andWhere(`term_id IN ${ofTaxonomy}`, { taxonomy: info.taxonomy })
      .execute();
    if (termIds.length > 0) {
      await manager.insert(
        EventTerm,
        termIds.map((termId) => ({ eventId, termId })),
      );
    }
  }
}

/** Deletes an event for good with its texts and links; its child events lose their parent. */
export async function deleteEvent(manager: EntityManager, id: number): Promise<void> {
  await manager.update(Event, { parentId: id }, { parentId: null });
  await manager.delete(EventTerm, { eventId: id });
  await manager.delete(EventOrganizer, { eventId: id });
  await manager.delete(EventTranslation, { eventId: id });
  await manager.delete(Event, id);
}

/**
 * The first statement of a transaction that changes an existing event: on
 * MySQL it waits for any other write of the event to commit, and since no
 * snapshot exists yet, every later read sees that write. (SQLite's writes
 * are already one at a time.)
 */
export async function lockEventRow(manager: EntityManager, eventId: number): Promise<void> {
  if (manager.connection.options.type !== 'mysql') return;
  await manager.findOne(Event, {
    where: { id: eventId },
    select: { id: true },
    lock: { mode: 'pessimistic_write' },
  });
}
