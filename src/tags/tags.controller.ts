import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Put,
  Query,
  Res,
} from '@nestjs/common';
import type { Response } from 'express';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ViewQueryDto } from '../common/dto/language-query.dto';
import { CachedValidators } from '../common/http/cached-validators';
import { IdParamPipe } from '../common/http/id-param.pipe';
import { Ctx, RequestContext } from '../common/http/request-context';
import { sendCreated, sendTagged } from '../common/http/tagged-record';
import { ApiListResponse } from '../common/pagination/api-list-response.decorator';
import { TermRecordDto } from '../terms/dto/term-record.dto';
import { TermsService } from '../terms/terms.service';
import { TAGS } from '../terms/taxonomies';
import { CreateTermDto } from '../terms/dto/create-term.dto';
import { TermListQueryDto } from '../terms/dto/term-list.query.dto';
import { UpdateTermDto } from '../terms/dto/update-term.dto';
import { ApiLanguageQuery } from '../i18n/api-language-query.decorator';

@ApiTags('tags')
@ApiLanguageQuery()
@CachedValidators()
@Controller('tags')
export class TagsController {
  constructor(private readonly terms: TermsService) {}

  @Get()
  @ApiListResponse('tags', TermRecordDto)
  @ApiOperation({ summary: 'List event tags' })
  list(@Query() query: TermListQueryDto, @Ctx() ctx: RequestContext) {
    return this.terms.list(TAGS, query, ctx);
  }

  @Post()
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Create an event tag (editor and up)' })
  async create(
    @Body() body: CreateTermDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendCreated(res, await this.terms.create(TAGS, body, ctx));
  }

  @Get(':id')
  @CachedValidators({ keepsAnswers: true })
  @ApiOperation({ summary: 'Read an event tag' })
  get(
    @Param('id', IdParamPipe) id: number,
    @Query() query: ViewQueryDto,
    @Ctx() ctx: RequestContext,
  ) {
    return this.terms.get(TAGS, id, ctx, query.context);
  }

  @Post(':id')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update an event tag' })
  async updateByPost(
    @Param('id', IdParamPipe) id: number,
    @Body() body: UpdateTermDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.terms.update(TAGS, id, body, ctx));
  }

  @Put(':id')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update an event tag' })
  async updateByPut(
    @Param('id', IdParamPipe) id: number,
    @Body() body: UpdateTermDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.terms.update(TAGS, id, body, ctx));
  }

  @Patch(':id')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update an event tag' })
  async updateByPatch(
    @Param('id', IdParamPipe) id: number,
    @Body() body: UpdateTermDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.terms.update(TAGS, id, body, ctx));
  }

  @Delete(':id')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Delete an event tag for good; answers it as it was' })
  remove(@Param('id', IdParamPipe) id: number, @Ctx() ctx: RequestContext) {
    return this.terms.remove(TAGS, id, ctx);
  }
}
