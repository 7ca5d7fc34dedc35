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
import { CachedValidators } from '../common/http/cached-validators';
import { IdParamPipe, SlugParamPipe } from '../common/http/id-param.pipe';
import { Ctx, RequestContext } from '../common/http/request-context';
import { sendCreated, sendTagged } from '../common/http/tagged-record';
import { ApiListResponse } from '../common/pagination/api-list-response.decorator';
import { CreateEventDto } from './dto/create-event.dto';
import { DeleteEventQueryDto, ReadEventQueryDto } from './dto/event-query.dto';
import { EventRecordDto } from './dto/event-record.dto';
import { ListEventsQueryDto } from './dto/list-events.query.dto';
import { UpdateEventDto } from './dto/update-event.dto';
import { EventWrites } from './event-writes.service';
import { EventsService } from './events.service';
import { ApiLanguageQuery } from '../i18n/api-language-query.decorator';

import { UpsertByExternalIdRoute } from '../posts/upsert-route.decorator';
import { ExternalKeyUpserts } from '../posts/external-upsert';
import { Event } from './entities/event.entity';
// by-slug routes are declared before `:id` (literal segments first).
@ApiTags('events')
@ApiLanguageQuery()
@CachedValidators()
@Controller('events')
export class EventsController {
  constructor(
    private readonly events: EventsService,
    private readonly writes: EventWrites,
    private readonly upserts: ExternalKeyUpserts,
  ) {}

  @Get()
  @CachedValidators({ readsVersionWithContent: true })
  @ApiListResponse('events', EventRecordDto, true)
  @ApiOperation({ summary: 'List events' })
  list(@Query() query: ListEventsQueryDto, @Ctx() ctx: RequestContext) {
    return this.events.list(query, ctx);
  }

  @Post()
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Create an event' })
  async create(
    @Body() body: CreateEventDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendCreated(res, await this.writes.create(body, ctx));
  }

  @Get('by-slug/:slug')
  @CachedValidators({ keepsAnswers: true })
  @ApiOperation({ summary: 'Read an event by slug' })
  getBySlug(
    @Param('slug', SlugParamPipe) slug: string,
    @Query() query: ReadEventQueryDto,
    @Ctx() ctx: RequestContext,
  ) {
    return this.events.get({ slug }, ctx, query);
  }

  @Post('by-slug/:slug')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update an event by slug' })
  async updateBySlugByPost(
    @Param('slug', SlugParamPipe) slug: string,
    @Body() body: UpdateEventDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.writes.update({ slug }, body, ctx));
  }

  @Put('by-slug/:slug')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update an event by slug' })
  async updateBySlugByPut(
    @Param('slug', SlugParamPipe) slug: string,
    @Body() body: UpdateEventDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.writes.update({ slug }, body, ctx));
  }

  @Patch('by-slug/:slug')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update an event by slug' })
  async updateBySlugByPatch(
    @Param('slug', SlugParamPipe) slug: string,
    @Body() body: UpdateEventDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.writes.update({ slug }, body, ctx));
  }

  @Delete('by-slug/:slug')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Trash an event by slug, or delete it for good with force=true' })
  async removeBySlug(
    @Param('slug', SlugParamPipe) slug: string,
    @Query() query: DeleteEventQueryDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.writes.remove({ slug }, query.force, ctx));
  }

  @UpsertByExternalIdRoute('an event', EventRecordDto)
  upsertByExternalId(
    @Param('source') source: string,
    @Param('id') id: string,
    @Body() body: CreateEventDto,
    @Ctx() ctx: RequestContext,
  ) {
    return this.upserts.upsert(
      { entity: Event, notFound: 'rest-event-not-found', writes: this.writes },
      { source, id },
      body,
      ctx,
    );
  }

  @Get(':id')
  @CachedValidators({ keepsAnswers: true })
  @ApiOperation({ summary: 'Read an event' })
  get(
    @Param('id', IdParamPipe) id: number,
    @Query() query: ReadEventQueryDto,
    @Ctx() ctx: RequestContext,
  ) {
    return this.events.get({ id }, ctx, query);
  }

  @Post(':id')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update an event' })
  async updateByPost(
    @Param('id', IdParamPipe) id: number,
    @Body() body: UpdateEventDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.writes.update({ id }, body, ctx));
  }

  @Put(':id')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update an event' })
  async updateByPut(
    @Param('id', IdParamPipe) id: number,
    @Body() body: UpdateEventDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.writes.update({ id }, body, ctx));
  }

  @Patch(':id')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Update an event' })
  async updateByPatch(
    @Param('id', IdParamPipe) id: number,
    @Body() body: UpdateEventDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.writes.update({ id }, body, ctx));
  }

  @Delete(':id')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Trash an event, or delete it for good with force=true' })
  async remove(
    @Param('id', IdParamPipe) id: number,
    @Query() query: DeleteEventQueryDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    return sendTagged(res, await this.writes.remove({ id }, query.force, ctx));
  }
}
