import { Module } from '@nestjs/common';
import { TermLinksService } from './term-links.service';
import { TermsService } from './terms.service';

/** The shared implementation behind categories and tags; TermLinksService serves events. */
@Module({
  providers: [TermsService, TermLinksService],
  exports: [TermsService, TermLinksService],
})
export class TermsModule {}
