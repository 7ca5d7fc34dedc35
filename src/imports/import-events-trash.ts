import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { RequestContext } from '../common/http/request-context';
import { liveEventsOfSource } from './import-lookups';
import { ImportWriter } from './import-writer';

/** Events read per page while trashing a source's events. */
const PAGE = 1000;

/**
 * `DELETE /imports/{id}?events=trash`: every event of the import's source
 * goes to the trash through the events' trash flow, as a refresh trashes the
 * events that left its feed (ImportWriter.trashEvents: a unit of work per 100
 * events), so the changes feed, webhooks, term counts and series see each as
 * if trashed by hand, and a large source does not take one transaction per
 * event. The If-Match of the import's DELETE is not theirs.
 */
@Injectable()
export class ImportEventsTrash {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly writer: ImportWriter,
  ) {}

  /** How many events it trashed. */
  async trashSource(source: string, ctx: RequestContext): Promise<number> {
    let trashed = 0;
    // Pages in key order, each after the last: the walk ends with the source's events.
    for (let afterKey: string | undefined; ;) {
      const page = await liveEventsOfSource(this.dataSource.manager, source, afterKey, PAGE);
      if (page.length === 0) return trashed;
      afterKey = page[page.length - 1].externalId as string;
      trashed += await this.writer.trashEvents(page, ctx.write);
    }
  }
}
