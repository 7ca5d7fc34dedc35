import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { ListPage, pageWindow } from '../common/pagination/list-page';
import { PageQueryDto } from '../common/pagination/page-query.dto';
import { nowEpoch } from '../common/time/dates';
import { appConfig } from '../config/app.config';
import type { WriteRequest } from '../common/http/write-request';
import { Writes } from '../writes/writes.service';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import { WebhookDeliveryDto, WebhookRecordDto } from './dto/webhook-record.dto';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity';
import { PING } from './message-types';
import { targetProblem } from '../common/net/target-safety';
import { mapDelivery, mapWebhook } from './webhook.mapper';
import { WebhookOutbox } from './webhook-outbox';
import { WebhookSender } from './webhook-sender.service';

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks' secret format). */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Administrators' management of webhook endpoints and their deliveries (docs/api.md §15). */
@Injectable()
export class WebhooksService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
    private readonly outbox: WebhookOutbox,
    private readonly sender: WebhookSender,
    private readonly writes: Writes,
  ) {}

  async list(query: PageQueryDto): Promise<ListPage<WebhookRecordDto>> {
    const window = pageWindow(query, this.config.maxPerPage);
    const [endpoints, total] = await this.dataSource.getRepository(WebhookEndpoint).findAndCount({
      order: { id: 'ASC' },
      skip: window.offset,
      take: window.perPage,
    });
    return new ListPage(
      'webhooks',
      endpoints.map((e) => mapWebhook(e)),
      total,
      window,
    );
  }

  async get(id: number): Promise<WebhookRecordDto> {
    return mapWebhook(await this.findOrFail(id));
  }

  async create(body: CreateWebhookDto, write?: WriteRequest): Promise<WebhookRecordDto> {
    await this.checkUrl(body.url);
    const secret = newSecret();
    const now = nowEpoch();
    const endpoint = await this.writes.run(write, async ({ manager }) => {
      const created = manager.create(WebhookEndpoint, {
        url: body.url,
        events: [...new Set(body.events)],
        description: body.description ?? '',
        enabled: body.enabled ?? true,
        secret,
        consecutiveFailures: 0,
        createdAt: now,
        modifiedAt: now,
      });
      await manager.insert(WebhookEndpoint, created);
      return created;
    });
    return mapWebhook(endpoint, secret);
  }

  async update(
    id: number,
    body: UpdateWebhookDto,
    write?: WriteRequest,
  ): Promise<WebhookRecordDto> {
    const current = await this.findOrFail(id);
    if (body.url !== undefined) await this.checkUrl(body.url);
    const changes: Partial<WebhookEndpoint> = { modifiedAt: nowEpoch() };
    if (body.url !== undefined) changes.url = body.url;
    if (body.events !== undefined) changes.events = [...new Set(body.events)];
    if (body.description !== undefined) changes.description = body.description;
    if (body.enabled !== undefined) {
      changes.enabled = body.enabled;
      // Enabled again by hand: the count of failures starts afresh.
      if (body.enabled && !current.enabled) changes.consecutiveFailures = 0;
    }
    await this.writes.run(write, ({ manager }) => manager.update(WebhookEndpoint, { id }, changes));
    if (changes.enabled) this.sender.wake();
    return this.get(id);
  }

  /** Deletes the endpoint with its deliveries (and so their messages); answers it as it was. */
  async remove(id: number, write?: WriteRequest): Promise<WebhookRecordDto> {
    const endpoint = await this.findOrFail(id);
    await this.writes.run(write, async ({ manager }) => {
      await manager.delete(WebhookDelivery, { endpointId: id });
      await manager.delete(WebhookEndpoint, { id });
    });
    return mapWebhook(endpoint);
  }

  /** A new secret, effective at once (retries of older messages are signed with it too). */
  async rotateSecret(id: number, write?: WriteRequest): Promise<WebhookRecordDto> {
    await this.findOrFail(id);
    const secret = newSecret();
    await this.writes.run(write, ({ manager }) =>
      manager.update(WebhookEndpoint, { id }, { secret, modifiedAt: nowEpoch() }),
    );
    return mapWebhook(await this.findOrFail(id), secret);
  }

  /** The deliveries log, newest first. */
  async deliveries(id: number, query: PageQueryDto): Promise<ListPage<WebhookDeliveryDto>> {
    await this.findOrFail(id);
    const window = pageWindow(query, this.config.maxPerPage);
    const [deliveries, total] = await this.dataSource.getRepository(WebhookDelivery).findAndCount({
      where: { endpointId: id },
      order: { id: 'DESC' },
      skip: window.offset,
      take: window.perPage,
    });
    return new ListPage('deliveries', deliveries.map(mapDelivery), total, window);
  }

  /** Queues the delivery to be sent again now (even to a disabled endpoint). */
  async retry(id: number, deliveryId: number, write?: WriteRequest): Promise<WebhookDeliveryDto> {
    await this.findOrFail(id);
    const delivery = await this.dataSource
      .getRepository(WebhookDelivery)
      .findOneBy({ id: deliveryId, endpointId: id });
    if (!delivery) throw new ApiError('rest-webhook-delivery-not-found');
    const changes = { status: 'pending' as const, forced: true, nextAttemptMs: Date.now() };
    await this.writes.run(write, ({ manager }) =>
      manager.update(WebhookDelivery, { id: deliveryId }, changes),
    );
    this.sender.wake();
    return mapDelivery({ ...delivery, ...changes });
  }

  /** Queues a `ping` message to the endpoint, sent now whatever it subscribes to. */
  async ping(id: number, write?: WriteRequest): Promise<WebhookDeliveryDto> {
    const endpoint = await this.findOrFail(id);
    const queued = await this.writes.run(write, (unit) =>
      this.outbox.storeForced(unit, { type: PING, data: { kind: 'webhook', id } }, endpoint),
    );
    return mapDelivery(queued);
  }

  private async findOrFail(id: number): Promise<WebhookEndpoint> {
    const endpoint =
      id > 0 ? await this.dataSource.getRepository(WebhookEndpoint).findOneBy({ id }) : null;
    if (!endpoint) throw new ApiError('rest-webhook-not-found');
    return endpoint;
  }

  /** Scheme, credentials, and the address the name resolves to (docs/api.md §15). */
  private async checkUrl(url: string): Promise<void> {
    const policy = this.config.webhooks;
    const problem = await targetProblem(url, policy);
    if (problem) throw ApiError.invalid('url', problem);
  }
}
