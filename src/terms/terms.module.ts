import { Module } from '@nestjs/common';
import { TermsService } from './terms.service';

/** The shared implementation behind categories and tags. */
@Module({ providers: [TermsService], exports: [TermsService] })
export class TermsModule {}
