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
import { DeleteQueryDto } from '../posts/dto/post-query.dto';
import { ViewQueryDto } from '../common/dto/language-query.dto';
import { CachedValidators } from '../common/http/cached-validators';
import { IdParamPipe, SlugParamPipe } from '../common/http/id-param.pipe';
import { Ctx, RequestContext } from '../common/http/request-context';
import { sendCreated, sendTagged } from '../common/http/tagged-record';
import { ApiListResponse } from '../common/pagination/api-list-response.decorator';
import { VenueRecordDto } from './dto/venue-record.dto';
import { CreateVenueDto } from './dto/create-venue.dto';
import { ListVenuesQueryDto } from './dto/list-venues.query.dto';
import { UpdateVenueDto } from './dto/update-venue.dto';
import { VenuesService } from './venues.service';
import { ApiLanguageQuery } from '../i18n/api-language-query.decorator';

import { UpsertByExternalIdRoute } from '../posts/upsert-route.decorator';
import { ExternalKeyUpserts } from '../posts/external-upsert';
import { Venue } from './entities/venue.entity';
// by-slug routes are declared before `:id` (literal segments first).
@ApiTags('venues')
@ApiLanguageQuery()
@CachedValidators()
@Controller('venues')
export class VenuesController {
  constructor(
    private readonly venues: VenuesService,
    private readonly upserts: ExternalKeyUpserts,
  ) {}

  @Get()
  @ApiListResponse('venues', VenueRecordDto)
  @ApiOperation({ summary: 'List venues' })
  list(@Query() query: ListVenuesQueryDto, @Ctx() ctx: RequestContext) {
    return this.venues.list(query, ctx);
  }

  @Post()
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Create a venue' })
  async create(
    @Body() body: CreateVenueDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendCreated(res, await this.venues.create(body, ctx));
  }

  @Get('by-slug/:slug')
  @CachedValidators({ keepsAnswers: true })
  @ApiOperation({ summary: 'Read a venue by slug' })
  getBySlug(
    @Param('slug', SlugParamPipe) slug: string,
    @Query() query: ViewQueryDto,
    @Ctx() ctx: RequestContext,
  ) {
    return this.venues.get({ slug }, ctx, query.context);
  }

  @Post('by-slug/:slug')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update a venue by slug' })
  async updateBySlugByPost(
    @Param('slug', SlugParamPipe) slug: string,
    @Body() body: UpdateVenueDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.venues.update({ slug }, body, ctx));
  }

  @Put('by-slug/:slug')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update a venue by slug' })
  async updateBySlugByPut(
    @Param('slug', SlugParamPipe) slug: string,
    @Body() body: UpdateVenueDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.venues.update({ slug }, body, ctx));
  }

  @Patch('by-slug/:slug')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update a venue by slug' })
  async updateBySlugByPatch(
    @Param('slug', SlugParamPipe) slug: string,
    @Body() body: UpdateVenueDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.venues.update({ slug }, body, ctx));
  }

  @Delete('by-slug/:slug')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Trash a venue by slug, or delete it for good with force=true' })
  async removeBySlug(
    @Param('slug', SlugParamPipe) slug: string,
    @Query() query: DeleteQueryDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.venues.remove({ slug }, query.force, ctx));
  }

  @UpsertByExternalIdRoute('a venue', VenueRecordDto)
  upsertByExternalId(
    @Param('source') source: string,
    @Param('id') id: string,
    @Body() body: CreateVenueDto,
    @Ctx() ctx: RequestContext,
  ) {
    return this.upserts.upsert(
      { entity: Venue, notFound: 'rest-venue-not-found', writes: this.venues },
      { source, id },
      body,
      ctx,
    );
  }

  @Get(':id')
  @CachedValidators({ keepsAnswers: true })
  @ApiOperation({ summary: 'Read a venue' })
  get(
    @Param('id', IdParamPipe) id: number,
    @Query() query: ViewQueryDto,
    @Ctx() ctx: RequestContext,
  ) {
    return this.venues.get({ id }, ctx, query.context);
  }

  @Post(':id')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update a venue' })
  async updateByPost(
    @Param('id', IdParamPipe) id: number,
    @Body() body: UpdateVenueDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.venues.update({ id }, body, ctx));
  }

  @Put(':id')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update a venue' })
  async updateByPut(
    @Param('id', IdParamPipe) id: number,
    @Body() body: UpdateVenueDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.venues.update({ id }, body, ctx));
  }

  @Patch(':id')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update a venue' })
  async updateByPatch(
    @Param('id', IdParamPipe) id: number,
    @Body() body: UpdateVenueDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.venues.update({ id }, body, ctx));
  }

  @Delete(':id')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Trash a venue, or delete it for good with force=true' })
  async remove(
    @Param('id', IdParamPipe) id: number,
    @Query() query: DeleteQueryDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.venues.remove({ id }, query.force, ctx));
  }
}
