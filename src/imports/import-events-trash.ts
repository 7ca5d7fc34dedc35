import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import type { RequestContext } from '../common/http/request-context';
import { EventWrites } from '../events/event-writes.service';

/** Events read per query while trashing a source's events. */
const BATCH = 200;
/** Already gone: trashed with its series meanwhile, or deleted. */
const GONE = new Set(['event-is-in-trash', 'rest-event-not-found']);

/**
 * `DELETE /imports/{id}?events=trash`: every event of the import's source
 * goes to the trash through the events' own DELETE (EventWrites.remove), so
 * the changes feed, webhooks, term counts and series see each as if trashed
 * by hand. The If-Match of the import's DELETE is not theirs.
 */
@Injectable()
export class ImportEventsTrash {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly events: EventWrites,
  ) {}

  /** How many events it trashed. */
  async trashSource(source: string, ctx: RequestContext): Promise<number> {
    const asCaller: RequestContext = { ...ctx, precondition: undefined };
    let trashed = 0;
    for (let after = 0; ;) {
      // The source's rows through uq_events_external_key, by ID: a keyset over a bounded set.
      const rows: Array<{ id: number | string }> = await this.dataSource
        .createQueryBuilder()
        .select('e.id', 'id')
        .from('events', 'e')
        .where('e.external_source = :source', { source })
        .andWhere("e.status <> 'trash'")
        .andWhere('e.id > :after', { after })
        .orderBy('e.id', 'ASC')
        .limit(BATCH)
        .getRawMany();
      if (rows.length === 0) return trashed;
      for (const row of rows) {
        after = Number(row.id);
        try {
          await this.events.remove({ id: after }, false, asCaller);
          trashed++;
        } catch (error) {
          if (!(error instanceof ApiError && GONE.has(error.key))) throw error;
        }
      }
    }
  }
}
