import { Controller, Get, Query } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiGoneResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ErrorBodyDto } from '../common/errors/error-body.dto';
import { CachedValidators } from '../common/http/cached-validators';
import type { JsonBytes } from '../common/http/json-writer';
import { Ctx, RequestContext } from '../common/http/request-context';
import { changesPageBytes } from './changes-page-bytes';
import { ChangesService } from './changes.service';
import { CHANGE_RECORD_MODELS, ChangesPageDto } from './dto/changes-page.dto';
import { ChangesQueryDto } from './dto/changes-query.dto';

@ApiTags('changes')
// Every answer moves only with writes and the retention purge, which bumps the data version too.
@CachedValidators()
@Controller('changes')
export class ChangesController {
  constructor(private readonly changes: ChangesService) {}

  @Get()
  @ApiExtraModels(...CHANGE_RECORD_MODELS)
  @ApiOperation({
    summary: 'Changes since a cursor (incremental sync)',
    description:
      'Every record the caller may read, then every change after it, in commit order: upserts with the record as its single read shows it (without json_ld), deletions of records the caller can no longer read. Follow next_cursor while has_more.',
  })
  @ApiGoneResponse({
    type: ErrorBodyDto,
    description:
      'rest_sync_cursor_expired: the cursor is older than SYNC_RETENTION_DAYS; sync again without since.',
  })
  @ApiOkResponse({ type: ChangesPageDto })
  async list(@Query() query: ChangesQueryDto, @Ctx() ctx: RequestContext): Promise<JsonBytes> {
    return changesPageBytes(await this.changes.page(query, ctx));
  }
}
