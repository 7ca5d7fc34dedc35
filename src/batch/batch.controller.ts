import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Ctx, RequestContext } from '../common/http/request-context';
import { BatchService } from './batch.service';
import { BatchAnswerDto } from './dto/batch-answer.dto';
import { BatchRequestDto } from './dto/batch-request.dto';

@ApiTags('batch')
@Controller('batch')
export class BatchController {
  constructor(private readonly batches: BatchService) {}

  @Post()
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Run up to 100 writes in one request, each as alone or all in one transaction',
  })
  @ApiOkResponse({ type: BatchAnswerDto })
  run(@Body() body: BatchRequestDto, @Ctx() ctx: RequestContext, @Req() req: Request) {
    return this.batches.run(body, ctx, req);
  }
}
