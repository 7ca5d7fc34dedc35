import { Controller, Get, Logger, Param, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { PostRef } from '../posts/post-store';
import { CachedValidators } from '../common/http/cached-validators';
import { FeedRateLimit } from '../common/limits/feed-rate-limit';
import { IdParamPipe, SlugParamPipe } from '../common/http/id-param.pipe';
import { Ctx, RequestContext } from '../common/http/request-context';
import { IcalEventQueryDto, IcalFeedQueryDto } from './dto/ical-query.dto';
import { recordTag } from '../common/http/record-tag';
import { IcalEventService } from './ical-event.service';
import { IcalFeedService } from './ical-feed.service';
import { sendHeadersOr304, streamTo } from './ical-response';

const CALENDAR = {
  description: 'An iCalendar (RFC 5545) object, CRLF line ends, lines folded at 75 octets.',
  content: { 'text/calendar': { schema: { type: 'string' } } },
};

/**
 * iCalendar feeds (docs/api.md §14). If-None-Match and 304 are declared in /doc
 * for every GET at once (src/index/openapi-finish/). Declared in a module registered before the
 * events module: `/events/{id}.ics` must be matched before `/events/{id}`.
 */
@ApiTags('events')
@Controller()
export class IcalController {
  private readonly logger = new Logger('IcalFeed');

  constructor(
    private readonly feeds: IcalFeedService,
    private readonly events: IcalEventService,
  ) {}

  // A repeated poll's 304 comes from the validator cache, before validation and this handler.
  @Get('events.ics')
  @FeedRateLimit()
  @CachedValidators({ writesResponse: true })
  @ApiOperation({
    summary: 'Subscribe to the events of any /events filter as an iCalendar feed (not paged)',
  })
  @ApiOkResponse(CALENDAR)
  async feed(
    @Query() query: IcalFeedQueryDto,
    @Ctx() ctx: RequestContext,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const prepared = await this.feeds.prepareFeed(query, ctx);
    if (!sendHeadersOr304(req, res, prepared.etag)) return;
    // The handler returns now: the body is streamed beyond the request timeout's reach.
    streamTo(res, this.feeds.feed(prepared, ctx), (error) =>
      this.logger.error(`feed aborted: ${error.message}`, error.stack),
    );
  }

  @Get('events/by-slug/:slug.ics')
  @ApiOperation({ summary: 'Read an event by slug as iCalendar' })
  @ApiOkResponse(CALENDAR)
  async bySlug(
    @Param('slug', SlugParamPipe) slug: string,
    @Query() query: IcalEventQueryDto,
    @Ctx() ctx: RequestContext,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await this.sendEvent({ slug }, query, ctx, req, res);
  }

  @Get('events/:id.ics')
  @ApiOperation({ summary: 'Read an event as iCalendar' })
  @ApiOkResponse(CALENDAR)
  async byId(
    @Param('id', IdParamPipe) id: number,
    @Query() query: IcalEventQueryDto,
    @Ctx() ctx: RequestContext,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await this.sendEvent({ id }, query, ctx, req, res);
  }

  /** A single event is small: its ETag is the record's tag of its bytes (recordTag). */
  private async sendEvent(
    ref: PostRef,
    query: IcalEventQueryDto,
    ctx: RequestContext,
    req: Request,
    res: Response,
  ): Promise<void> {
    const body = await this.events.event(ref, query, ctx);
    if (sendHeadersOr304(req, res, recordTag(body))) res.end(body);
  }
}
