import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';
import { VersionService } from './version.service';

@Module({
  controllers: [HealthController],
  providers: [HealthService, VersionService],
  exports: [HealthService],
})
export class HealthModule {}
