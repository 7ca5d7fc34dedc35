import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiError } from '../common/errors/api-error';
import { CachedValidators } from '../common/http/cached-validators';
import { Ctx, RequestContext } from '../common/http/request-context';
import { NAMESPACE } from '../config/app.config';
import { IndexQueryDto } from './dto/index-query.dto';
import { OpenApiDocumentStore } from './openapi-document.store';
import { buildRouteIndex, OPENAPI_DOCUMENT_SCHEMA, ROUTE_INDEX_SCHEMA } from './route-index';
import { ApiLanguageQuery } from '../i18n/api-language-query.decorator';

@ApiTags('index')
@ApiLanguageQuery()
@CachedValidators()
@Controller()
export class IndexController {
  constructor(private readonly documents: OpenApiDocumentStore) {}

  @Get()
  @ApiOperation({ summary: 'The routes of the namespace with their methods and arguments' })
  @ApiOkResponse({ description: 'The namespace index', schema: ROUTE_INDEX_SCHEMA })
  index(@Query() query: IndexQueryDto, @Ctx() ctx: RequestContext) {
    if (query.namespace !== undefined && query.namespace !== NAMESPACE) {
      throw new ApiError('rest_invalid_namespace');
    }
    const restRoot = ctx.apiUrl.slice(0, ctx.apiUrl.length - NAMESPACE.length - 1) || ctx.apiUrl;
    return buildRouteIndex(this.documents.get(), NAMESPACE, ctx.apiUrl, `${restRoot}/`);
  }

  @Get('doc')
  @ApiOperation({ summary: 'The OpenAPI 3 document of this API' })
  @ApiOkResponse({ description: 'This OpenAPI document', schema: OPENAPI_DOCUMENT_SCHEMA })
  doc(@Ctx() ctx: RequestContext) {
    return { ...this.documents.get(), servers: [{ url: ctx.apiUrl }] };
  }
}
