import { Injectable, OnModuleInit } from '@nestjs/common';
import { RecordReaders, type WrittenRows } from '../common/records/record-readers';
import type { EventRows, LinkedRecordCache } from './event-records.service';
import { EventsService } from './events.service';

/** Registers how events are read by ID (RecordReaders). */
@Injectable()
export class EventReader implements OnModuleInit {
  constructor(
    private readonly readers: RecordReaders,
    private readonly events: EventsService,
  ) {}

  onModuleInit(): void {
    this.readers.register(['event'], {
      // The feed's store is events' LinkedRecordCache: the records in it are those events embed.
      feed: (ids, ctx, linked) =>
        this.events.feedRecords(ids, ctx, linked as LinkedRecordCache | undefined),
      edit: (manager, ids, ctx, kept) =>
        this.events.editRecords(manager, ids, ctx, isEventRows(kept) ? kept : undefined),
      get: (id, ctx) => this.events.get({ id }, ctx, {}),
    });
  }
}

/** Written rows that hold events too: an event write's own (WRITTEN_EVENT_ROWS). */
function isEventRows(rows: WrittenRows | undefined): rows is EventRows {
  return rows !== undefined && 'events' in rows && 'links' in rows;
}
