import { Module } from '@nestjs/common';
import { WritesModule } from '../writes/writes.module';
import { TermLinksService } from './term-links.service';
import { TermReader } from './term-reader';
import { TermsService } from './terms.service';

/** The shared implementation behind categories and tags; TermLinksService serves events. */
@Module({
  imports: [WritesModule],
  providers: [TermsService, TermLinksService, TermReader],
  exports: [TermsService, TermLinksService],
})
export class TermsModule {}
