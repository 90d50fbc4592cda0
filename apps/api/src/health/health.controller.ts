import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ErrorCode } from '@docqa/common';
import { HealthReport, HealthService, publicView } from './health.service';
import { VersionService } from './version.service';

/** The public body of a report: per-part up/down only (details are on the metrics port). */
function render(report: HealthReport, res: Response, okStatus: string, what: string) {
  const view = publicView(report);
  if (report.status === 'ok') return { ...view, status: okStatus };
  res.status(503);
  return {
    message: `${what}: ${report.down.join(', ')} down`,
    errorCode: ErrorCode.DEPENDENCY_UNAVAILABLE,
    ...view,
  };
}

@ApiTags('Document API: general')
@Controller('api/v1/document_proxy')
export class HealthController {
  constructor(
    private readonly health: HealthService,
    private readonly version: VersionService,
  ) {}

  @Get('health')
  @ApiOperation({
    summary:
      'Dependency probe (no credential): each part up or down, 503 naming what is down. `search` is a real read and a write probe within a 3 s deadline; `indexing` is down when activities have waited to start longer than 2 minutes while none progressed. Engine details are on the operator-only metrics port (`GET /health`).',
  })
  @ApiOkResponse({
    description: '`{ status: "ok", checks: { postgres, temporal, search, indexing: { status } }, down: [] }`',
  })
  @ApiServiceUnavailableResponse({
    description:
      '`{ status: "unavailable", message, errorCode: "DEPENDENCY_UNAVAILABLE", checks, down: [...] }`',
  })
  async getHealth(@Res({ passthrough: true }) res: Response) {
    return render(await this.health.check(), res, 'ok', 'Unavailable');
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
      'Readiness probe for orchestrators (no credential): 200 while Postgres answers, the search engine answers its read and write probes and indexing is not stalled; 503 naming the part otherwise.',
  })
  @ApiOkResponse({
    description: '`{ status: "ready", checks: { postgres, search, indexing: { status } }, down: [] }`',
  })
  @ApiServiceUnavailableResponse({
    description:
      '`{ status: "unavailable", message, errorCode: "DEPENDENCY_UNAVAILABLE", checks, down: ["postgres" | "search" | "indexing"] }`',
  })
  async getReady(@Res({ passthrough: true }) res: Response) {
    return render(await this.health.ready(), res, 'ready', 'Not ready');
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
