import { Module } from '@nestjs/common';
import { SourceCredentialsCipher } from './credentials-cipher';
import { S3Connector } from './s3/s3.connector';
import { SOURCE_CONNECTORS, SourceConnectorRegistry } from './source-connectors';
import { SourceConnector } from './source.port';

/** Source connectors (S3 now) behind the SourceConnector port. Needs ConfigModule. */
@Module({
  providers: [
    S3Connector,
    {
      provide: SOURCE_CONNECTORS,
      inject: [S3Connector],
      useFactory: (s3: S3Connector): SourceConnector[] => [s3],
    },
    SourceConnectorRegistry,
    SourceCredentialsCipher,
  ],
  exports: [SourceConnectorRegistry, SourceCredentialsCipher],
})
export class SourcesModule {}
