import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { TermsModule } from '../terms/terms.module';
import { WritesModule } from '../writes/writes.module';
import { ImportWriter } from './import-writer';

/** The import writer (ImportWriter): parsed iCalendar feeds into events, for the imports resource. */
@Module({
  imports: [WritesModule, EventsModule, TermsModule],
  providers: [ImportWriter],
  exports: [ImportWriter],
})
export class ImportWriterModule {}
