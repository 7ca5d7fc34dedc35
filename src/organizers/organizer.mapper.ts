import {
  ContentMapOptions,
  ContentParts,
  contentRecord,
  jsonLdBase,
} from '../posts/content-record';
import { withoutEmptyStrings } from '../posts/post-fields';
import { OrganizerRecordDto } from './dto/organizer-record.dto';
import { Organizer } from './entities/organizer.entity';

/** The organizer record of docs/api.md §6 (order: see mapOrganizer; schema: OrganizerRecordDto). */
export type OrganizerRecord = OrganizerRecordDto;

export function mapOrganizer(organizer: Organizer, options: ContentMapOptions): OrganizerRecord {
  return contentRecord(
    organizer,
    options,
    'organizer',
    {
      phone: organizer.phone ?? '',
      website: organizer.website ?? '',
      email: organizer.email ?? '',
    },
    (parts) => organizerJsonLd(organizer, parts),
  );
}

/** Single reads: schema.org Organization with its contact details. */
function organizerJsonLd(organizer: Organizer, parts: ContentParts): Record<string, unknown> {
  return withoutEmptyStrings({
    ...jsonLdBase('Organization', parts),
    telephone: organizer.phone ?? '',
    email: organizer.email ?? '',
    sameAs: organizer.website ?? '',
  });
}
