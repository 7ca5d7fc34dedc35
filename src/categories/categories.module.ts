import { Module } from '@nestjs/common';
import { TermsModule } from '../terms/terms.module';
import { CategoriesController } from './categories.controller';

@Module({ imports: [TermsModule], controllers: [CategoriesController] })
export class CategoriesModule {}
