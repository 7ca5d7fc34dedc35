import { Inject, Injectable } from '@nestjs/common';
import { SearchGate } from '../common/limits/search-gate';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import type { RequestContext } from '../common/http/request-context';
import { MAX_LIST_ITEMS } from '../common/validation/decorators';
import { RecordReaders } from '../common/records/record-readers';
import { appConfig } from '../config/app.config';
import { CONTENT_TITLE, ContentKind, contentWrite, emptyToNull } from '../posts/content-kind';
import { ContentService } from '../posts/content.service';
import { isUnlinkValue, parseReference } from '../posts/inline-content';
import { CreateOrganizerDto } from './dto/create-organizer.dto';
import { UpdateOrganizerDto } from './dto/update-organizer.dto';
import { OrganizerTranslation } from './entities/organizer-translation.entity';
import { Organizer } from './entities/organizer.entity';
import { mapOrganizer, OrganizerRecord } from './organizer.mapper';
import type { WriteUnit } from '../writes/write-unit';
import { Writes } from '../writes/writes.service';

/** Organizers as a content kind; events list them in `event_organizers`. */
const ORGANIZERS: ContentKind<
  Organizer,
  OrganizerTranslation,
  OrganizerRecord,
  UpdateOrganizerDto
> = {
  entity: Organizer,
  translation: OrganizerTranslation,
  ownerKey: 'organizerId',
  ...CONTENT_TITLE,
  titleWire: 'organizer',
  slugFallback: 'organizer',
  collection: 'organizers',
  permalinkPath: 'organizer',
  notFound: 'rest-organizer-not-found',
  errors: {
    notAccessible: 'organizer-not-accessible',
    inTrash: 'organizer-is-in-trash',
    pageNotFound: 'organizer-archive-page-not-found',
  },
  searchColumns: ['phone', 'email', 'website'],
  write: (input) =>
    contentWrite<Organizer>(input, input.organizer, {
      phone: emptyToNull(input.phone),
      website: emptyToNull(input.website),
      email: emptyToNull(input.email),
    }),
  // Inline organizers of event bodies are reused on the same name (any language) and e-mail.
  inline: { dto: CreateOrganizerDto, matchOn: ['email'] },
  map: mapOrganizer,
};

/** Organizers (docs/api.md §2–§7): the shared content flows with the organizer kind, and the event `organizer` input. */
@Injectable()
export class OrganizersService extends ContentService<
  Organizer,
  OrganizerTranslation,
  OrganizerRecord,
  UpdateOrganizerDto
> {
  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(appConfig.KEY) config: ConfigType<typeof appConfig>,
    writes: Writes,
    readers: RecordReaders,
    searchGate: SearchGate,
  ) {
    super(dataSource, config, ORGANIZERS, writes, readers, searchGate);
  }

  /**
   * An event's `organizer` input (docs/api.md §6) inside the event's
   * transaction: undefined → unchanged (undefined); `[]`, `""`, 0, null →
   * [] (unlink all); else IDs, a comma list, `{id}` objects and inline
   * organizers (reused or created), mixed, in the order given, without
   * duplicates. An unknown or trashed ID → 400 `organizer`. `deferred`:
   * collects the IDs referenced instead of checking them (as for venues).
   */
  async resolveForEvent(
    unit: WriteUnit,
    input: unknown,
    ctx: RequestContext,
    deferred?: number[],
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
      ids.push(typeof ref === 'number' ? ref : await this.resolveInline(unit, ref, ctx));
    }
    if (deferred) deferred.push(...referenced);
    else await this.assertUsable(unit.manager, [...new Set(referenced)]);
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
