import { Global, Module } from '@nestjs/common';
import { IndexController } from './index.controller';
import { OpenApiDocumentStore } from './openapi-document.store';

@Global()
@Module({
  controllers: [IndexController],
  providers: [OpenApiDocumentStore],
  exports: [OpenApiDocumentStore],
})
export class IndexModule {}
