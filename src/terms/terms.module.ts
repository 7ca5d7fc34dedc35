import { Module } from '@nestjs/common';
import { WritesModule } from '../writes/writes.module';
import { TermLinksService } from './term-links.service';
import { TermsService } from './terms.service';

/** The shared implementation behind categories and tags; TermLinksService serves events. */
@Module({
  imports: [WritesModule],
  providers: [TermsService, TermLinksService],
  exports: [TermsService, TermLinksService],
})
export class TermsModule {}
