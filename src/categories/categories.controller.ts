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
import { CATEGORIES } from '../terms/taxonomies';
import { CreateCategoryDto } from './dto/create-category.dto';
import { ListCategoriesQueryDto } from './dto/list-categories.query.dto';
import { UpdateCategoryDto } from './dto/update-category.dto';
import { ApiLanguageQuery } from '../i18n/api-language-query.decorator';

@ApiTags('categories')
@ApiLanguageQuery()
@CachedValidators()
@Controller('categories')
export class CategoriesController {
  constructor(private readonly terms: TermsService) {}

  @Get()
  @ApiListResponse('categories', TermRecordDto)
  @ApiOperation({ summary: 'List event categories' })
  list(@Query() query: ListCategoriesQueryDto, @Ctx() ctx: RequestContext) {
    return this.terms.list(CATEGORIES, query, ctx);
  }

  @Post()
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Create an event category (author and up)' })
  async create(
    @Body() body: CreateCategoryDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendCreated(res, await this.terms.create(CATEGORIES, body, ctx));
  }

  @Get(':id')
  @CachedValidators({ keepsAnswers: true })
  @ApiOperation({ summary: 'Read an event category' })
  get(
    @Param('id', IdParamPipe) id: number,
    @Query() query: ViewQueryDto,
    @Ctx() ctx: RequestContext,
  ) {
    return this.terms.get(CATEGORIES, id, ctx, query.context);
  }

  @Post(':id')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update an event category' })
  async updateByPost(
    @Param('id', IdParamPipe) id: number,
    @Body() body: UpdateCategoryDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.terms.update(CATEGORIES, id, body, ctx));
  }

  @Put(':id')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update an event category' })
  async updateByPut(
    @Param('id', IdParamPipe) id: number,
    @Body() body: UpdateCategoryDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.terms.update(CATEGORIES, id, body, ctx));
  }

  @Patch(':id')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update an event category' })
  async updateByPatch(
    @Param('id', IdParamPipe) id: number,
    @Body() body: UpdateCategoryDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.terms.update(CATEGORIES, id, body, ctx));
  }

  @Delete(':id')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Delete an event category for good; answers it as it was' })
  remove(@Param('id', IdParamPipe) id: number, @Ctx() ctx: RequestContext) {
    return this.terms.remove(CATEGORIES, id, ctx);
  }
}
