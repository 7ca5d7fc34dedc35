import { Module } from '@nestjs/common';
import { TermLinksService } from './term-links.service';
import { TermReader } from './term-reader';
import { TermsService } from './terms.service';

/** The shared implementation behind categories and tags; TermLinksService serves events. */
@Module({
  providers: [TermsService, TermLinksService, TermReader],
  exports: [TermsService, TermLinksService],
})
export class TermsModule {}
