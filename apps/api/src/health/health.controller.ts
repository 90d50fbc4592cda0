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

  @Get('version')
  @HttpCode(200)
  @ApiOperation({ summary: 'Running application version (no credential).' })
  @ApiOkResponse({ description: '`{ name, version, commit }`' })
  getVersion() {
    return this.version.get();
  }
}
