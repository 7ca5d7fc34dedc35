import { Controller, Get, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { Response } from 'express';

/** Probes for container orchestrators, outside the API namespace (docs/api.md §10). */
// Orchestrators probe often; never rate-limit them.
@SkipThrottle()
@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
  ) {}

  /** The process is up and serving HTTP. */
  @Get('live')
  live() {
    return { status: 'ok' };
  }

  /** The database answers within a second; 503 otherwise. */
  @Get('ready')
  async ready(@Res({ passthrough: true }) res: Response) {
    try {
      return await this.health.check([
        () => this.database.pingCheck('database', { timeout: 1000 }),
      ]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      res.status(503).setHeader('Retry-After', '5');
      return error.getResponse();
    }
  }
}
