import { Module } from '@nestjs/common';
import { TermsModule } from '../terms/terms.module';
import { TagsController } from './tags.controller';

@Module({ imports: [TermsModule], controllers: [TagsController] })
export class TagsModule {}
