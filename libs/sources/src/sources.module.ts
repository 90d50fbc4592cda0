import { Module } from '@nestjs/common';
import { CatalogModule } from '@docqa/catalog';
import { SourceCredentialsCipher } from './credentials-cipher';
import { S3Connector } from './s3/s3.connector';
import { GoogleDriveConnector } from './gdrive/gdrive.connector';
import { SharePointConnector } from './sharepoint/sharepoint.connector';
import { SOURCE_CONNECTORS, SourceConnectorRegistry } from './source-connectors';
import { SourceSync } from './sync/source-sync';
import { SourceConnector } from './source.port';

/** Source connectors (S3, SharePoint, Google Drive) behind the SourceConnector port. Needs ConfigModule. */
@Module({
  imports: [CatalogModule],
  providers: [
    S3Connector,
    SharePointConnector,
    GoogleDriveConnector,
    {
      provide: SOURCE_CONNECTORS,
      inject: [S3Connector, SharePointConnector, GoogleDriveConnector],
      useFactory: (
        s3: S3Connector,
        sharePoint: SharePointConnector,
        drive: GoogleDriveConnector,
      ): SourceConnector[] => [s3, sharePoint, drive],
    },
    SourceConnectorRegistry,
    SourceCredentialsCipher,
    SourceSync,
  ],
  exports: [SourceConnectorRegistry, SourceCredentialsCipher, SourceSync],
})
export class SourcesModule {}
