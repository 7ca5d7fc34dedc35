// STAND-IN: replaced by the iwriter branch on merge
import { Module } from '@nestjs/common';
import { ImportWriter } from './import-writer';

/** The import writer (the real module is the iwriter branch's). */
@Module({ providers: [ImportWriter], exports: [ImportWriter] })
export class ImportWriterModule {}
