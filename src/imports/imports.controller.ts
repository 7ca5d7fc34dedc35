import { Controller, Delete, Get, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { IdParamPipe } from '../common/http/id-param.pipe';
import { Ctx, type RequestContext } from '../common/http/request-context';
import { ApiListResponse } from '../common/pagination/api-list-response.decorator';
import { EXTERNAL_SOURCE_PATTERN, MAX_EXTERNAL_SOURCE } from '../posts/dto/external-key.dto';
import { ApiLanguageQuery } from '../i18n/api-language-query.decorator';
import { CreateImportDto, IMPORT_STATUSES } from './dto/create-import.dto';
import { DeleteImportQueryDto, ListImportsQueryDto } from './dto/import-queries.dto';
import { ImportRecordDto, ImportWithRunsDto } from './dto/import-record.dto';
import { CALENDAR_TYPE, type ImportInput, ImportRequest } from './import-input';
import { ImportsGuard } from './imports.guard';
import { ImportsService } from './imports.service';

const UPLOAD_ONLY = 'Only with a `text/calendar` body (a URL import sends it in its JSON body).';

@ApiTags('imports')
@ApiLanguageQuery()
@ApiBearerAuth()
@UseGuards(ImportsGuard)
@Controller('imports')
export class ImportsController {
  constructor(private readonly imports: ImportsService) {}

  @Get()
  @ApiListResponse('imports', ImportRecordDto)
  @ApiOperation({ summary: 'List imports (administrators)' })
  list(@Query() query: ListImportsQueryDto) {
    return this.imports.list(query);
  }

  @Post()
  @ApiConsumes('application/json', CALENDAR_TYPE)
  @ApiBody({
    type: CreateImportDto,
    description:
      'A feed to import now and on a schedule (JSON or form), or an iCalendar file of at most 10 MiB (`text/calendar`, its settings in the query).',
  })
  @ApiQuery({
    name: 'source',
    required: false,
    schema: {
      type: 'string',
      pattern: EXTERNAL_SOURCE_PATTERN.source,
      maxLength: MAX_EXTERNAL_SOURCE,
    },
    description: `The source name of the uploaded calendar's events (required with an upload). ${UPLOAD_ONLY}`,
  })
  @ApiQuery({
    name: 'categories',
    required: false,
    type: [Number],
    description: `Category IDs added to every imported event. ${UPLOAD_ONLY}`,
  })
  @ApiQuery({ name: 'status', required: false, enum: IMPORT_STATUSES, description: UPLOAD_ONLY })
  @ApiQuery({ name: 'trash_removed', required: false, type: Boolean, description: UPLOAD_ONLY })
  @ApiCreatedResponse({
    type: ImportWithRunsDto,
    description: 'An uploaded calendar, imported: the import with the report of its run.',
  })
  @ApiAcceptedResponse({
    type: ImportWithRunsDto,
    description:
      'A URL import, stored: its first run starts at once (`runs` is empty until it ends).',
  })
  @ApiOperation({
    summary: 'Import an iCalendar file, or a feed URL on a schedule (administrators)',
  })
  async create(
    @ImportRequest() input: ImportInput,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    const created = await this.imports.create(input, ctx);
    res.status(input.kind === 'url' ? 202 : 201);
    res.setHeader('Location', `${ctx.apiUrl}/imports/${created.id}`);
    return created;
  }

  @Get(':id')
  @ApiOkResponse({ type: ImportWithRunsDto })
  @ApiOperation({ summary: 'Read an import with its last 10 runs (administrators)' })
  get(@Param('id', IdParamPipe) id: number) {
    return this.imports.get(id);
  }

  @Delete(':id')
  @ApiOkResponse({ type: ImportRecordDto, description: 'The import as it was.' })
  @ApiOperation({
    summary:
      'Delete an import and its run reports; `events=trash` trashes its events (administrators)',
  })
  remove(
    @Param('id', IdParamPipe) id: number,
    @Query() query: DeleteImportQueryDto,
    @Ctx() ctx: RequestContext,
  ) {
    return this.imports.remove(id, query.events ?? 'keep', ctx);
  }
}
