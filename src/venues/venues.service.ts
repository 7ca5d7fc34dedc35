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
import type { RequestContext } from '../common/http/request-context';
import type { ListPage } from '../common/pagination/list-page';
import { appConfig } from '../config/app.config';
import { Event } from '../events/entities/event.entity';
import { CreateVenueDto } from './dto/create-venue.dto';
import { ListVenuesQueryDto } from './dto/list-venues.query.dto';
import { UpdateVenueDto } from './dto/update-venue.dto';
import { VenueTranslation } from './entities/venue-translation.entity';
import { Venue } from './entities/venue.entity';
import { mapVenue, VenueRecord } from './venue.mapper';

/** Venues for the shared content functions; events point at them with `events.venue_id`. */
const VENUES: ContentKind<Venue, VenueTranslation, VenueRecord> = {
  entity: Venue,
  translation: VenueTranslation,
  ownerKey: 'venueId',
  nameField: 'venue',
  collection: 'venues',
  permalinkPath: 'venue',
  errors: {
    notFound: 'rest-venue-not-found',
    notAccessible: 'venue-not-accessible',
    inTrash: 'venue-is-in-trash',
    pageNotFound: 'venue-archive-page-not-found',
  },
  searchColumns: ['address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
  linkedEvents: (qb, outerId) =>
    qb.subQuery().select('1').from(Event, 'e').where(`e.venueId = ${outerId}`),
  unlinkEvents: async (manager, id) => {
    await manager.update(Event, { venueId: id }, { venueId: null });
  },
  map: mapVenue,
};

function venueWrite(input: UpdateVenueDto): ContentWrite<Venue> {
  return contentWrite<Venue>(input, input.venue, {
    address: emptyToNull(input.address),
    city: emptyToNull(input.city),
    country: emptyToNull(input.country),
    province: emptyToNull(input.province),
    state: emptyToNull(input.state),
    zip: emptyToNull(input.zip),
    phone: emptyToNull(input.phone),
    website: emptyToNull(input.website),
    stateprovince: emptyToNull(input.stateprovince),
    geoLat: input.geo_lat,
    geoLng: input.geo_lng,
    showMap: input.show_map,
    showMapLink: input.show_map_link,
  });
}

/** Inline venues of event bodies: reused on the same name (any language), address and city. */
const INLINE_VENUE: InlineSpec<Venue, CreateVenueDto> = {
  dto: CreateVenueDto,
  name: 'venue',
  toWrite: venueWrite,
  matchOn: ['address', 'city'],
};

/** Venues (contract §2–§7), composed from the shared content functions. */
@Injectable()
export class VenuesService {
  private readonly env: ContentEnv;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(appConfig.KEY) config: ConfigType<typeof appConfig>,
  ) {
    this.env = { dataSource, config };
  }

  list(query: ListVenuesQueryDto, ctx: RequestContext): Promise<ListPage<VenueRecord>> {
    return listContent(this.env, VENUES, query, ctx);
  }

  get(ref: ContentRef, ctx: RequestContext, context?: 'view' | 'edit'): Promise<VenueRecord> {
    return readContent(this.env, VENUES, ref, ctx, context);
  }

  create(input: CreateVenueDto, ctx: RequestContext): Promise<VenueRecord> {
    return createContent(this.env, VENUES, venueWrite(input), ctx);
  }

  update(ref: ContentRef, input: UpdateVenueDto, ctx: RequestContext): Promise<VenueRecord> {
    return updateContent(this.env, VENUES, ref, venueWrite(input), ctx);
  }

  remove(ref: ContentRef, force: boolean | undefined, ctx: RequestContext): Promise<VenueRecord> {
    return removeContent(this.env, VENUES, ref, force, ctx);
  }

  /** Venue records for events, in ctx.language with fallback; no JSON-LD or translations. */
  recordsByIds(ids: number[], ctx: RequestContext): Promise<Map<number, VenueRecord>> {
    return contentRecordsByIds(this.env, VENUES, ids, ctx);
  }

  /**
   * An event's `venue` input (contract §6) inside the event's transaction:
   * undefined → unchanged (undefined); `0`, `""`, `[]`, null → null (unlink);
   * an ID or `{id}` of a venue that is not trashed; or an inline venue,
   * reused or created (400 `venue.<field>` when invalid, 403 for callers who
   * may not create venues).
   */
  async resolveForEvent(
    manager: EntityManager,
    input: unknown,
    ctx: RequestContext,
  ): Promise<number | null | undefined> {
    if (input === undefined) return undefined;
    if (isUnlinkValue(input)) return null;
    const ref = parseReference(input, 'venue');
    if (typeof ref !== 'number') {
      return resolveInline(this.env, VENUES, INLINE_VENUE, manager, ref, ctx);
    }
    await assertUsable(manager, VENUES, [ref], 'venue');
    return ref;
  }
}
