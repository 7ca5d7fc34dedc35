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
import { OrganizerRecordDto } from './dto/organizer-record.dto';
import { CreateOrganizerDto } from './dto/create-organizer.dto';
import { ListOrganizersQueryDto } from './dto/list-organizers.query.dto';
import { UpdateOrganizerDto } from './dto/update-organizer.dto';
import { OrganizersService } from './organizers.service';
import { ApiLanguageQuery } from '../i18n/api-language-query.decorator';

import { UpsertByExternalIdRoute } from '../posts/upsert-route.decorator';
import { ExternalKeyUpserts } from '../posts/external-upsert';
import { Organizer } from './entities/organizer.entity';
// by-slug routes are declared before `:id` (literal segments first).
@ApiTags('organizers')
@ApiLanguageQuery()
@CachedValidators()
@Controller('organizers')
export class OrganizersController {
  constructor(
    private readonly organizers: OrganizersService,
    private readonly upserts: ExternalKeyUpserts,
  ) {}

  @Get()
  @ApiListResponse('organizers', OrganizerRecordDto)
  @ApiOperation({ summary: 'List organizers' })
  list(@Query() query: ListOrganizersQueryDto, @Ctx() ctx: RequestContext) {
    return this.organizers.list(query, ctx);
  }

  @Post()
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Create an organizer' })
  async create(
    @Body() body: CreateOrganizerDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendCreated(res, await this.organizers.create(body, ctx));
  }

  @Get('by-slug/:slug')
  @CachedValidators({ keepsAnswers: true })
  @ApiOperation({ summary: 'Read an organizer by slug' })
  getBySlug(
    @Param('slug', SlugParamPipe) slug: string,
    @Query() query: ViewQueryDto,
    @Ctx() ctx: RequestContext,
  ) {
    return this.organizers.get({ slug }, ctx, query.context);
  }

  @Post('by-slug/:slug')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update an organizer by slug' })
  async updateBySlugByPost(
    @Param('slug', SlugParamPipe) slug: string,
    @Body() body: UpdateOrganizerDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.organizers.update({ slug }, body, ctx));
  }

  @Put('by-slug/:slug')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update an organizer by slug' })
  async updateBySlugByPut(
    @Param('slug', SlugParamPipe) slug: string,
    @Body() body: UpdateOrganizerDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.organizers.update({ slug }, body, ctx));
  }

  @Patch('by-slug/:slug')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update an organizer by slug' })
  async updateBySlugByPatch(
    @Param('slug', SlugParamPipe) slug: string,
    @Body() body: UpdateOrganizerDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.organizers.update({ slug }, body, ctx));
  }

  @Delete('by-slug/:slug')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Trash an organizer by slug, or delete it for good with force=true' })
  async removeBySlug(
    @Param('slug', SlugParamPipe) slug: string,
    @Query() query: DeleteQueryDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.organizers.remove({ slug }, query.force, ctx));
  }

  @UpsertByExternalIdRoute('an organizer', OrganizerRecordDto)
  upsertByExternalId(
    @Param('source') source: string,
    @Param('id') id: string,
    @Body() body: CreateOrganizerDto,
    @Ctx() ctx: RequestContext,
  ) {
    return this.upserts.upsert(
      { entity: Organizer, notFound: 'rest-organizer-not-found', writes: this.organizers },
      { source, id },
      body,
      ctx,
    );
  }

  @Get(':id')
  @CachedValidators({ keepsAnswers: true })
  @ApiOperation({ summary: 'Read an organizer' })
  get(
    @Param('id', IdParamPipe) id: number,
    @Query() query: ViewQueryDto,
    @Ctx() ctx: RequestContext,
  ) {
    return this.organizers.get({ id }, ctx, query.context);
  }

  @Post(':id')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update an organizer' })
  async updateByPost(
    @Param('id', IdParamPipe) id: number,
    @Body() body: UpdateOrganizerDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.organizers.update({ id }, body, ctx));
  }

  @Put(':id')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update an organizer' })
  async updateByPut(
    @Param('id', IdParamPipe) id: number,
    @Body() body: UpdateOrganizerDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.organizers.update({ id }, body, ctx));
  }

  @Patch(':id')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update an organizer' })
  async updateByPatch(
    @Param('id', IdParamPipe) id: number,
    @Body() body: UpdateOrganizerDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.organizers.update({ id }, body, ctx));
  }

  @Delete(':id')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Trash an organizer, or delete it for good with force=true' })
  async remove(
    @Param('id', IdParamPipe) id: number,
    @Query() query: DeleteQueryDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.organizers.remove({ id }, query.force, ctx));
  }
}
