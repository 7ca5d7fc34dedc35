import { Inject, Injectable } from '@nestjs/common';
import { SearchGate } from '../common/limits/search-gate';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { RecordReaders } from '../common/records/record-readers';
import { appConfig } from '../config/app.config';
import { CONTENT_TITLE, ContentKind, contentWrite, emptyToNull } from '../posts/content-kind';
import { ContentService } from '../posts/content.service';
import { isUnlinkValue, parseReference } from '../posts/inline-content';
import type { RequestContext } from '../common/http/request-context';
import { CreateVenueDto } from './dto/create-venue.dto';
import { UpdateVenueDto } from './dto/update-venue.dto';
import { VenueTranslation } from './entities/venue-translation.entity';
import { Venue } from './entities/venue.entity';
import { mapVenue, VenueRecord } from './venue.mapper';
import type { WriteUnit } from '../writes/write-unit';
import { Writes } from '../writes/writes.service';

/** Venues as a content kind; events point at them with `events.venue_id`. */
const VENUES: ContentKind<Venue, VenueTranslation, VenueRecord, UpdateVenueDto> = {
  entity: Venue,
  translation: VenueTranslation,
  ownerKey: 'venueId',
  ...CONTENT_TITLE,
  titleWire: 'venue',
  slugFallback: 'venue',
  collection: 'venues',
  permalinkPath: 'venue',
  notFound: 'rest-venue-not-found',
  errors: {
    notAccessible: 'venue-not-accessible',
    inTrash: 'venue-is-in-trash',
    pageNotFound: 'venue-archive-page-not-found',
  },
  searchColumns: ['address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
  write: (input) =>
    contentWrite<Venue>(input, input.venue, {
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
    }),
  // Inline venues of event bodies are reused on the same name (any language), address and city.
  inline: { dto: CreateVenueDto, matchOn: ['address', 'city'] },
  map: mapVenue,
};

/** Venues (docs/api.md §2–§7): the shared content flows with the venue kind, and the event `venue` input. */
@Injectable()
export class VenuesService extends ContentService<
  Venue,
  VenueTranslation,
  VenueRecord,
  UpdateVenueDto
> {
  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(appConfig.KEY) config: ConfigType<typeof appConfig>,
    writes: Writes,
    readers: RecordReaders,
    searchGate: SearchGate,
  ) {
    super(dataSource, config, VENUES, writes, readers, searchGate);
  }

  /**
   * An event's `venue` input (docs/api.md §6) inside the event's transaction:
   * undefined → unchanged (undefined); `0`, `""`, `[]`, null → null (unlink);
   * an ID or `{id}` of a venue that is not trashed; or an inline venue,
   * reused or created (400 `venue.<field>` when invalid, 403 for callers who
   * may not create venues). `deferred`: collects the IDs referenced instead
   * of checking them, for a caller that checks many events' at once (assertUsable).
   */
  async resolveForEvent(
    unit: WriteUnit,
    input: unknown,
    ctx: RequestContext,
    deferred?: number[],
  ): Promise<number | null | undefined> {
    if (input === undefined) return undefined;
    if (isUnlinkValue(input)) return null;
    const ref = parseReference(input, 'venue');
    if (typeof ref !== 'number') return this.resolveInline(unit, ref, ctx);
    if (deferred) deferred.push(ref);
    else await this.assertUsable(unit.manager, [ref]);
    return ref;
  }
}
