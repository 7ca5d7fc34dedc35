import { Injectable, OnModuleInit } from '@nestjs/common';
import { cachedRecords } from '../common/records/linked-record-cache';
import { RecordReaders } from '../common/records/record-readers';
import type { Term } from './entities/term.entity';
import { CATEGORIES, TAGS } from './taxonomies';
import { TermLinksService } from './term-links.service';
import { TermsService } from './terms.service';

/**
 * Registers how categories and tags are read by ID (RecordReaders): one
 * reader for both, so a read of both kinds is one batch (terms share a table).
 */
@Injectable()
export class TermReader implements OnModuleInit {
  constructor(
    private readonly readers: RecordReaders,
    private readonly terms: TermsService,
    private readonly links: TermLinksService,
  ) {}

  onModuleInit(): void {
    this.readers.register(['category', 'tag'], {
      // Every term may be read by anyone: as events embed them (with their counts).
      feed: (ids, ctx, linked) =>
        cachedRecords<object>(linked, linked?.terms, ids, (missing) =>
          this.links.recordsByIds(missing, ctx),
        ),
      edit: (manager, ids, ctx, kept) =>
        // A write's kept term rows are Term rows.
        this.links.recordsByIds(ids, ctx, manager, true, kept?.terms as ReadonlyMap<number, Term>),
      get: (id, ctx, kind) => this.terms.get(kind === 'tag' ? TAGS : CATEGORIES, id, ctx),
    });
  }
}
