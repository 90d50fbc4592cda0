import { Global, Module } from '@nestjs/common';
import { WorkDrains } from './shutdown';

/** Global: one WorkDrains per application, which the Temporal worker joins (see WorkDrains). */
@Global()
@Module({ providers: [WorkDrains], exports: [WorkDrains] })
export class ShutdownModule {}
