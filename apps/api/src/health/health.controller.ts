import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ErrorCode } from '@docqa/common';
import { HealthService } from './health.service';
import { VersionService } from './version.service';

@ApiTags('Document API: general')
@Controller('api/v1/document_proxy')
export class HealthController {
  constructor(
    private readonly health: HealthService,
    private readonly version: VersionService,
  ) {}

  @Get('health')
  @ApiOperation({ summary: 'Liveness and dependency probe (no credential). 503 names what is down.' })
  @ApiOkResponse({ description: '`{ status: "ok", checks: { postgres, temporal, search }, down: [] }`' })
  @ApiServiceUnavailableResponse({
    description:
      '`{ status: "unavailable", message, errorCode: "DEPENDENCY_UNAVAILABLE", checks, down: [...] }`',
  })
  async getHealth(@Res({ passthrough: true }) res: Response) {
    const report = await this.health.check();
    if (report.status === 'ok') return report;
    res.status(503);
    return {
      message: `Unavailable: ${report.down.join(', ')} down`,
      errorCode: ErrorCode.DEPENDENCY_UNAVAILABLE,
      ...report,
    };
  }

  @Get('health/live')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Liveness probe for orchestrators (no credential): the process is up and serving. Checks no dependency, so a database outage never restarts the API.',
  })
  @ApiOkResponse({ description: '`{ status: "ok" }`' })
  getLive() {
    return { status: 'ok' };
  }

  @Get('health/ready')
  @ApiOperation({
    summary:
      'Readiness probe for orchestrators (no credential): 200 while Postgres answers, 503 while it does not, so a load balancer stops routing to this replica.',
  })
  @ApiOkResponse({ description: '`{ status: "ready", checks: { postgres } }`' })
  @ApiServiceUnavailableResponse({
    description:
      '`{ status: "unavailable", message, errorCode: "DEPENDENCY_UNAVAILABLE", checks, down: ["postgres"] }`',
  })
  async getReady(@Res({ passthrough: true }) res: Response) {
    const postgres = await this.health.checkPostgres();
    if (postgres.status === 'up') return { status: 'ready', checks: { postgres } };
    res.status(503);
    return {
      message: 'Not ready: postgres down',
      errorCode: ErrorCode.DEPENDENCY_UNAVAILABLE,
      status: 'unavailable',
      checks: { postgres },
      down: ['postgres'],
    };
  }

  @Get('version')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Running application version (no credential), and the embedder in use: its model and dimensions select the search index version; `warning` says when the local semantic model is missing and the lexical hashing embedder stands in.',
  })
  @ApiOkResponse({ description: '`{ name, version, commit, embedder: { model, dimensions, warning? } }`' })
  getVersion() {
    return this.version.get();
  }
}
