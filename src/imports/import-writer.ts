// STAND-IN: replaced by the iwriter branch on merge
import { Injectable } from '@nestjs/common';
import type { WriteRequest } from '../common/http/write-request';
import type { ImportParseResult } from './import-item';
import type { ImportReport, ImportTarget } from './import-report';

/** Applies one parsed feed to the target's events (the real one is the iwriter branch's). */
@Injectable()
export class ImportWriter {
  apply(
    _target: ImportTarget,
    parsed: ImportParseResult,
    _request: WriteRequest | undefined,
  ): Promise<ImportReport> {
    return Promise.resolve({
      created: 0,
      updated: 0,
      unchanged: 0,
      trashed: 0,
      skipped: parsed.skipped,
    });
  }
}
