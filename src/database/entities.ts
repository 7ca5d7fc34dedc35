import { Change } from '../writes/change.entity';
import { DataVersion } from '../common/cache/data-version.entity';
import { EventOrganizer } from '../events/entities/event-organizer.entity';
import { EventTerm } from '../events/entities/event-term.entity';
import { EventTranslation } from '../events/entities/event-translation.entity';
import { Event } from '../events/entities/event.entity';
import { OrganizerTranslation } from '../organizers/entities/organizer-translation.entity';
import { Organizer } from '../organizers/entities/organizer.entity';
import { TermTranslation } from '../terms/entities/term-translation.entity';
import { Term } from '../terms/entities/term.entity';
import { VenueTranslation } from '../venues/entities/venue-translation.entity';
import { IdempotencyKey } from '../idempotency/idempotency-key.entity';
import { Venue } from '../venues/entities/venue.entity';
import { WebhookDelivery } from '../webhooks/entities/webhook-delivery.entity';
import { WebhookEndpoint } from '../webhooks/entities/webhook-endpoint.entity';
import { ImportRun } from '../imports/entities/import-run.entity';
import { ImportSource } from '../imports/entities/import-source.entity';

/** Every entity, listed explicitly (no globs: the same list works in ts-node, jest and dist). */
export const ENTITIES = [
  DataVersion,
  Term,
  TermTranslation,
  Venue,
  VenueTranslation,
  Organizer,
  OrganizerTranslation,
  Event,
  EventTranslation,
  EventOrganizer,
  EventTerm,
  WebhookEndpoint,
  WebhookDelivery,
  Change,
  IdempotencyKey,
  ImportSource,
  ImportRun,
];
