import { InitialSchema1763856000000 } from './1763856000000-initial-schema';
import { EventListIndex1764460800000 } from './1764460800000-event-list-index';
import { DataVersion1764547200000 } from './1764547200000-data-version';
import { TermPublishedCount1764633600000 } from './1764633600000-term-published-count';
import { Webhooks1764723600000 } from './1764723600000-webhooks';
import { EventRevision1764810000000 } from './1764810000000-event-revision';
import { Changes1764813600000 } from './1764813600000-changes';
import { RecurringEvents1764900000000 } from './1764900000000-recurring-events';
import { IdempotencyKeys1765000000000 } from './1765000000000-idempotency-keys';
import { WebhookRetention1765100000000 } from './1765100000000-webhook-retention';
import { EventZoneIndex1765200000000 } from './1765200000000-event-zone-index';
import { WebhookMessagesInDeliveries1765300000000 } from './1765300000000-webhook-messages-in-deliveries';
import { FullTextSearch1765400000000 } from './1765400000000-full-text-search';
import { EventLinkedModified1765470000000 } from './1765470000000-event-linked-modified';
import { ExternalKeys1765600000000 } from './1765600000000-external-keys';
import { ContentFullTextSearch1765650000000 } from './1765650000000-content-full-text-search';
import { ImportHash1765700000000 } from './1765700000000-import-hash';
import { Imports1765800000000 } from './1765800000000-imports';
import { EventStatsSample1765900000000 } from './1765900000000-event-stats-sample';

/** Every migration, in order. Listed explicitly so ts-node, jest and dist all find them. */
export const MIGRATIONS = [
  InitialSchema1763856000000,
  EventListIndex1764460800000,
  DataVersion1764547200000,
  TermPublishedCount1764633600000,
  Webhooks1764723600000,
  EventRevision1764810000000,
  Changes1764813600000,
  RecurringEvents1764900000000,
  IdempotencyKeys1765000000000,
  WebhookRetention1765100000000,
  EventZoneIndex1765200000000,
  WebhookMessagesInDeliveries1765300000000,
  FullTextSearch1765400000000,
  EventLinkedModified1765470000000,
  ExternalKeys1765600000000,
  ContentFullTextSearch1765650000000,
  ImportHash1765700000000,
  Imports1765800000000,
  EventStatsSample1765900000000,
];
