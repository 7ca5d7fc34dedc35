import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { WritesModule } from '../writes/writes.module';
import { ImportEventsTrash } from './import-events-trash';
import { ImportRunner } from './import-runner';
import { ImportScheduler } from './import-scheduler.service';
import { ImportStore } from './import-store';
import { ImportWriterModule } from './import-writer.module';
import { ImportsController } from './imports.controller';
import { ImportsService } from './imports.service';

/**
 * iCalendar imports (docs/api.md "Imports"): the administrators' resource,
 * the runs and their reports, and the schedule of URL imports. Writing a
 * parsed feed is the ImportWriter's job.
 */
@Module({
  imports: [WritesModule, EventsModule, ImportWriterModule],
  controllers: [ImportsController],
  providers: [ImportsService, ImportStore, ImportRunner, ImportScheduler, ImportEventsTrash],
})
export class ImportsModule {}
