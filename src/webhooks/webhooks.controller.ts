import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  Res,
  UseGuards,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { IdParamPipe } from '../common/http/id-param.pipe';
import { Ctx, RequestContext } from '../common/http/request-context';
import { Write, type WriteRequest } from '../common/http/write-request';
import { ApiListResponse } from '../common/pagination/api-list-response.decorator';
import { ApiLanguageQuery } from '../i18n/api-language-query.decorator';
import { SecretAnswerFields } from '../idempotency/secret-fields';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { ListWebhooksQueryDto } from './dto/list-webhooks.query.dto';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import {
  WebhookDeliveryDto,
  WebhookRecordDto,
  WebhookWithSecretDto,
} from './dto/webhook-record.dto';
import { WebhooksGuard } from './webhooks.guard';
import { WebhooksService } from './webhooks.service';

@ApiTags('webhooks')
@ApiLanguageQuery()
@ApiBearerAuth()
@UseGuards(WebhooksGuard)
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @ApiListResponse('webhooks', WebhookRecordDto)
  @ApiOperation({ summary: 'List webhook endpoints (administrators)' })
  list(@Query() query: ListWebhooksQueryDto) {
    return this.webhooks.list(query);
  }

  @Post()
  @ApiCreatedResponse({
    type: WebhookWithSecretDto,
    description:
      'The endpoint with its secret, shown only here; `secret` is null in a replayed answer (`Idempotency-Replayed: true`).',
  })
  @SecretAnswerFields('secret')
  @ApiOperation({ summary: 'Register a webhook endpoint (administrators)' })
  async create(
    @Body() body: CreateWebhookDto,
    @Ctx() ctx: RequestContext,
    @Res({ passthrough: true }) res: Response,
  ) {
    const created = await this.webhooks.create(body, ctx.write);
    res.setHeader('Location', `${ctx.apiUrl}/webhooks/${created.id}`);
    return created;
  }

  @Get(':id')
  @ApiOkResponse({ type: WebhookRecordDto })
  @ApiOperation({ summary: 'Read a webhook endpoint (administrators)' })
  get(@Param('id', IdParamPipe) id: number) {
    return this.webhooks.get(id);
  }

  @Patch(':id')
  @ApiOkResponse({ type: WebhookRecordDto })
  @ApiOperation({ summary: 'Change a webhook endpoint (administrators)' })
  update(
    @Param('id', IdParamPipe) id: number,
    @Body() body: UpdateWebhookDto,
    @Write() write: WriteRequest,
  ) {
    return this.webhooks.update(id, body, write);
  }

  @Delete(':id')
  @ApiOkResponse({ type: WebhookRecordDto, description: 'The endpoint as it was.' })
  @ApiOperation({ summary: 'Delete a webhook endpoint and its deliveries (administrators)' })
  remove(@Param('id', IdParamPipe) id: number, @Write() write: WriteRequest) {
    return this.webhooks.remove(id, write);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOkResponse({
    type: WebhookWithSecretDto,
    description:
      'The endpoint with its new secret, shown only here; `secret` is null in a replayed answer (`Idempotency-Replayed: true`).',
  })
  @SecretAnswerFields('secret')
  @ApiOperation({ summary: 'Replace the signing secret of a webhook endpoint (administrators)' })
  rotateSecret(@Param('id', IdParamPipe) id: number, @Write() write: WriteRequest) {
    return this.webhooks.rotateSecret(id, write);
  }

  @Get(':id/deliveries')
  @ApiListResponse('deliveries', WebhookDeliveryDto)
  @ApiOperation({
    summary: 'The deliveries log of a webhook endpoint, newest first (administrators)',
  })
  deliveries(@Param('id', IdParamPipe) id: number, @Query() query: ListWebhooksQueryDto) {
    return this.webhooks.deliveries(id, query);
  }

  @Post(':id/deliveries/:delivery_id/retry')
  @HttpCode(202)
  @ApiAcceptedResponse({
    type: WebhookDeliveryDto,
    description: 'The delivery, queued to be sent now.',
  })
  @ApiOperation({ summary: 'Send a delivery again now (administrators)' })
  retry(
    @Param('id', IdParamPipe) id: number,
    @Param('delivery_id', IdParamPipe) deliveryId: number,
    @Write() write: WriteRequest,
  ) {
    return this.webhooks.retry(id, deliveryId, write);
  }

  @Post(':id/ping')
  @HttpCode(202)
  @ApiAcceptedResponse({
    type: WebhookDeliveryDto,
    description: 'The ping delivery, queued to be sent now.',
  })
  @ApiOperation({ summary: 'Send a ping message to a webhook endpoint now (administrators)' })
  ping(@Param('id', IdParamPipe) id: number, @Write() write: WriteRequest) {
    return this.webhooks.ping(id, write);
  }
}
