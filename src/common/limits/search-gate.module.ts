import { Module } from '@nestjs/common';
import { SearchGate } from './search-gate';

/** The instance's one SearchGate, for every module that runs full-text searches. */
@Module({ providers: [SearchGate], exports: [SearchGate] })
export class SearchGateModule {}
