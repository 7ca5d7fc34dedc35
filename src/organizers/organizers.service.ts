import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { ContentKind, ContentRef } from '../common/content/content-kind';
import {
  ContentEnv,
  contentRecordsByIds,
  createContent,
  listContent,
  readContent,
  removeContent,
  updateContent,
} from '../common/content/content-operations';
import { assertUsable } from '../common/content/content-store';
import { ContentWrite, contentWrite, emptyToNull } from '../common/content/content-write';
import {
  InlineSpec,
  isUnlinkValue,
  parseReference,
  resolveInline,
} from '../common/content/inline-content';
import { ApiError } from '../common/errors/api-error';
import type { RequestContext } from '../common/http/request-context';
import type { ListPage } from '../common/pagination/list-page';
import { MAX_LIST_ITEMS } from '../common/validation/decorators';
import { appConfig } from '../config/app.config';
import { EventOrganizer } from '../events/entities/event-organizer.entity';
import { Event } from '../events/entities/event.entity';
import { CreateOrganizerDto } from './dto/create-organizer.dto';
import { ListOrganizersQueryDto } from './dto/list-organizers.query.dto';
import { UpdateOrganizerDto } from './dto/update-organizer.dto';
import { OrganizerTranslation } from './entities/organizer-translation.entity';
import { Organizer } from './entities/organizer.entity';
import { mapOrganizer, OrganizerRecord } from './organizer.mapper';

/** Organizers for the shared content functions; events list them in `event_organizers`. */
const ORGANIZERS: ContentKind<Organizer, OrganizerTranslation, OrganizerRecord> = {
  entity: Organizer,
  translation: OrganizerTranslation,
  ownerKey: 'organizerId',
  nameField: 'organizer',
  collection: 'organizers',
  permalinkPath: 'organizer',
  errors: {
    notFound: 'rest-organizer-not-found',
    notAccessible: 'organizer-not-accessible',
    inTrash: 'organizer-is-in-trash',
    pageNotFound: 'organizer-archive-page-not-found',
  },
  searchColumns: ['phone', 'email', 'website'],
  linkedEvents: (qb, outerId) =>
    qb
      .subQuery()
      .select('1')
      .from(EventOrganizer, 'eo')
      .innerJoin(Event, 'e', 'e.id = eo.eventId')
      .where(`eo.organizerId = ${outerId}`),
  unlinkEvents: async (manager, id) => {
    await manager.delete(EventOrganizer, { organizerId: id });
  },
  map: mapOrganizer,
};

function organizerWrite(input: UpdateOrganizerDto): ContentWrite<Organizer> {
  return contentWrite<Organizer>(input, input.organizer, {
    phone: emptyToNull(input.phone),
    website: emptyToNull(input.website),
    email: emptyToNull(input.email),
  });
}

/** Inline organizers of event bodies: reused on the same name (any language) and e-mail. */
const INLINE_ORGANIZER: InlineSpec<Organizer, CreateOrganizerDto> = {
  dto: CreateOrganizerDto,
  name: 'organizer',
  toWrite: organizerWrite,
  matchOn: ['email'],
};

/** Organizers (contract §2–§7), composed from the shared content functions. */
@Injectable()
export class OrganizersService {
  private readonly env: ContentEnv;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(appConfig.KEY) config: ConfigType<typeof appConfig>,
  ) {
    this.env = { dataSource, config };
  }

  list(query: ListOrganizersQueryDto, ctx: RequestContext): Promise<ListPage<OrganizerRecord>> {
    return listContent(this.env, ORGANIZERS, query, ctx);
  }

  get(ref: ContentRef, ctx: RequestContext, context?: 'view' | 'edit'): Promise<OrganizerRecord> {
    return readContent(this.env, ORGANIZERS, ref, ctx, context);
  }

  create(input: CreateOrganizerDto, ctx: RequestContext): Promise<OrganizerRecord> {
    return createContent(this.env, ORGANIZERS, organizerWrite(input), ctx);
  }

  update(
    ref: ContentRef,
    input: UpdateOrganizerDto,
    ctx: RequestContext,
  ): Promise<OrganizerRecord> {
    return updateContent(this.env, ORGANIZERS, ref, organizerWrite(input), ctx);
  }

  remove(
    ref: ContentRef,
    force: boolean | undefined,
    ctx: RequestContext,
  ): Promise<OrganizerRecord> {
    return removeContent(this.env, ORGANIZERS, ref, force, ctx);
  }

  /** Organizer records for events, in ctx.language with fallback; no JSON-LD or translations. */
  recordsByIds(ids: number[], ctx: RequestContext): Promise<Map<number, OrganizerRecord>> {
    return contentRecordsByIds(this.env, ORGANIZERS, ids, ctx);
  }

  /**
   * An event's `organizer` input (contract §6) inside the event's
   * transaction: undefined → unchanged (undefined); `[]`, `""`, 0, null →
   * [] (unlink all); else IDs, a comma list, `{id}` objects and inline
   * organizers (reused or created), mixed, in the order given, without
   * duplicates. An unknown or trashed ID → 400 `organizer`.
   */
  async resolveForEvent(
    manager: EntityManager,
    input: unknown,
    ctx: RequestContext,
  ): Promise<number[] | undefined> {
    if (input === undefined) return undefined;
    if (isUnlinkValue(input)) return [];
    const items = referenceItems(input);
    if (items.length > MAX_LIST_ITEMS) throw ApiError.invalid('organizer', 'arrayMaxSize');
    const referenced: number[] = [];
    const ids: number[] = [];
    for (const item of items) {
      const ref = parseReference(item, 'organizer');
      if (typeof ref === 'number') referenced.push(ref);
      ids.push(
        typeof ref === 'number'
          ? ref
          : await resolveInline(this.env, ORGANIZERS, INLINE_ORGANIZER, manager, ref, ctx),
      );
    }
    await assertUsable(manager, ORGANIZERS, [...new Set(referenced)], 'organizer');
    return [...new Set(ids)];
  }
}

/** The items of an organizer list: an array, a comma list or a single value. */
function referenceItems(input: unknown): unknown[] {
  const items = Array.isArray(input) ? input : [input];
  return items
    .flatMap((item) => (typeof item === 'string' ? item.split(',') : [item]))
    .map((item) => (typeof item === 'string' ? item.trim() : item))
    .filter((item) => item !== '');
}
