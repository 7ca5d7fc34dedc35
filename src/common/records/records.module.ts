import { Global, Module } from '@nestjs/common';
import { RecordReaders } from './record-readers';

/** The registry of record readers: global, so every kind's module registers in the same one. */
@Global()
@Module({ providers: [RecordReaders], exports: [RecordReaders] })
export class RecordsModule {}
