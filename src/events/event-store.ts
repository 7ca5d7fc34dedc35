import { EntityManager, In } from 'typeorm';
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

/**
 * Replaces the links the write sent; a category change leaves the tags alone
 * and vice versa. Term links change by difference, with the current ones read
 * without locks (the event row is locked): a DELETE over a subquery of
 * `terms` would share-lock every term of the taxonomy and deadlock with
 * concurrent writers of other events. `isNew`: the event has no links yet.
 */
export async function writeEventLinks(
  manager: EntityManager,
  eventId: number,
  links: LinkChanges,
  isNew = false,
): Promise<void> {
  if (links.organizerIds) {
    if (!isNew) await manager.delete(EventOrganizer, { eventId });
    if (links.organizerIds.length > 0) {
      await manager.insert(
        EventOrganizer,
        links.organizerIds.map((organizerId, position) => ({ eventId, organizerId, position })),
      );
    }
  }
  const changes = (
    [
      [CATEGORIES, links.categoryIds],
      [TAGS, links.tagIds],
    ] as Array<[TaxonomyInfo, number[] | undefined]>
  ).filter((change): change is [TaxonomyInfo, number[]] => change[1] !== undefined);
  if (changes.length === 0) return;
  const linked = isNew ? [] : await linkedTerms(manager, eventId);
  for (const [info, termIds] of changes) {
    const wanted = new Set(termIds);
    const current = new Set(
      linked.filter((l) => l.taxonomy === info.taxonomy).map((l) => l.termId),
    );
    const stale = [...current].filter((id) => !wanted.has(id));
    const added = [...wanted].filter((id) => !current.has(id));
    if (stale.length > 0) await manager.delete(EventTerm, { eventId, termId: In(stale) });
    if (added.length > 0) {
      await manager.insert(
        EventTerm,
        added.map((termId) => ({ eventId, termId })),
      );
    }
  }
}

async function linkedTerms(
  manager: EntityManager,
  eventId: number,
): Promise<Array<{ termId: number; taxonomy: string }>> {
  const rows: Array<{ termId: number | string; taxonomy: string }> = await manager
    .createQueryBuilder(EventTerm, 'et')
    .innerJoin(Term, 't', 't.id = et.termId')
    .select('et.termId', 'termId')
    .addSelect('t.taxonomy', 'taxonomy')
    .where('et.eventId = :eventId', { eventId })
    .getRawMany();
  return rows.map((row) => ({ termId: Number(row.termId), taxonomy: row.taxonomy }));
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
