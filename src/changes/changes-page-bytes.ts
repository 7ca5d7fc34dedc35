import { JsonBytes, JsonWriter } from '../common/http/json-writer';
import type { ChangeEntryDto, ChangesPageDto } from './dto/changes-page.dto';

/**
 * A changes-feed answer as UTF-8 JSON, the same bytes as JSON.stringify: the
 * venues, organizers and terms its records embed come from the feed's shared
 * linked-record cache, so each is encoded once instead of once per event
 * that embeds it (about 70 % of an answer's bytes).
 */
export function changesPageBytes(page: ChangesPageDto): JsonBytes {
  const out = new JsonWriter();
  out.object(page, {
    changes: (entries: ChangeEntryDto[]) =>
      out.array(entries, (entry) =>
        out.object(entry, { record: (record: object) => out.object(record) }),
      ),
  });
  return new JsonBytes(out.bytes());
}
