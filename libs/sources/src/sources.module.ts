import { Module } from '@nestjs/common';
import { SourceCredentialsCipher } from './credentials-cipher';
import { S3Connector } from './s3/s3.connector';
import { SharePointConnector } from './sharepoint/sharepoint.connector';
import { SOURCE_CONNECTORS, SourceConnectorRegistry } from './source-connectors';
import { SourceConnector } from './source.port';

/** Source connectors (S3, SharePoint) behind the SourceConnector port. Needs ConfigModule. */
@Module({
  providers: [
    S3Connector,
    SharePointConnector,
    {
      provide: SOURCE_CONNECTORS,
      inject: [S3Connector, SharePointConnector],
      useFactory: (s3: S3Connector, sharePoint: SharePointConnector): SourceConnector[] => [s3, sharePoint],
    },
    SourceConnectorRegistry,
    SourceCredentialsCipher,
  ],
  exports: [SourceConnectorRegistry, SourceCredentialsCipher],
})
export class SourcesModule {}
