import { Injectable } from '@nestjs/common';
import type { ChangeKind } from '../changes/change-kinds';
import { ApiError } from '../common/errors/api-error';
import type { RequestContext } from '../common/http/request-context';
import { recordTag } from '../common/http/record-tag';
import { EventsService } from '../events/events.service';
import { OrganizersService } from '../organizers/organizers.service';
import { CATEGORIES, TAGS } from '../terms/taxonomies';
import { TermsService } from '../terms/terms.service';
import { VenuesService } from '../venues/venues.service';

/**
 * The ETag a GET of a record by this caller would carry now (docs/api.md §11),
 * for the answer rebuilt when a write committed but its stored answer was
 * lost: a write's answer carries that tag, so a client can chain If-Match.
 */
@Injectable()
export class ReadTags {
  constructor(
    private readonly events: EventsService,
    private readonly venues: VenuesService,
    private readonly organizers: OrganizersService,
    private readonly terms: TermsService,
  ) {}

  /** Undefined when the caller may not read the record (or it is gone). */
  async of(kind: ChangeKind, id: number, ctx: RequestContext): Promise<string | undefined> {
    const read: Record<ChangeKind, () => Promise<unknown>> = {
      event: () => this.events.get({ id }, ctx, {}),
      venue: () => this.venues.get({ id }, ctx),
      organizer: () => this.organizers.get({ id }, ctx),
      category: () => this.terms.get(CATEGORIES, id, ctx),
      tag: () => this.terms.get(TAGS, id, ctx),
    };
    try {
      return recordTag(await read[kind]());
    } catch (error) {
      if (error instanceof ApiError) return undefined;
      throw error;
    }
  }
}
