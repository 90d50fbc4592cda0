import { Module } from '@nestjs/common';
import { CatalogModule } from '@docqa/catalog';
import { SourceCredentialsCipher } from './credentials-cipher';
import { S3Connector } from './s3/s3.connector';
import { GoogleDriveConnector } from './gdrive/gdrive.connector';
import { SharePointConnector } from './sharepoint/sharepoint.connector';
import { SOURCE_CONNECTORS, SourceConnectorRegistry } from './source-connectors';
import { SourceSync } from './sync/source-sync';
import { SourceConnector } from './source.port';
import { UploadConnector } from './upload/upload.connector';
import { UploadFiles } from './upload/upload-files';

/** Source connectors (S3, SharePoint, Google Drive, the upload store) behind the SourceConnector port. Needs ConfigModule. */
@Module({
  imports: [CatalogModule],
  providers: [
    S3Connector,
    SharePointConnector,
    GoogleDriveConnector,
    UploadFiles,
    UploadConnector,
    {
      provide: SOURCE_CONNECTORS,
      inject: [S3Connector, SharePointConnector, GoogleDriveConnector, UploadConnector],
      useFactory: (
        s3: S3Connector,
        sharePoint: SharePointConnector,
        drive: GoogleDriveConnector,
        upload: UploadConnector,
      ): SourceConnector[] => [s3, sharePoint, drive, upload],
    },
    SourceConnectorRegistry,
    SourceCredentialsCipher,
    SourceSync,
  ],
  exports: [SourceConnectorRegistry, SourceCredentialsCipher, SourceSync, UploadFiles],
})
export class SourcesModule {}
