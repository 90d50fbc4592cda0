import { Inject, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode } from '@docqa/common';
import type { SourceType } from '@docqa/db';
import { SourceConnector } from './source.port';

/** Multi-binding of every available connector (SourcesModule fills it). */
export const SOURCE_CONNECTORS = Symbol('SOURCE_CONNECTORS');

/** Looks up the connector of a source type. */
@Injectable()
export class SourceConnectorRegistry {
  private readonly byType = new Map<SourceType, SourceConnector>();

  constructor(@Inject(SOURCE_CONNECTORS) connectors: SourceConnector[]) {
    for (const c of connectors) this.byType.set(c.sourceType, c);
  }

  /** 503 CAPABILITY_DISABLED for a source type this deployment has no connector for. */
  get(type: SourceType): SourceConnector {
    const c = this.byType.get(type);
    if (!c) throw new DomainError(ErrorCode.CAPABILITY_DISABLED, `The ${type} source is not available yet`);
    return c;
  }
}
