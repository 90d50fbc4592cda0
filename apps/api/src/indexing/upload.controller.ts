import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiConsumes,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { DOCSET_NAME_MAX, DOCSET_NAME_RULE } from '@docqa/catalog';
import { ApiTokenAuth, AuthContext, CurrentAuth, isDocsetAllowed, RequireWrite } from '@docqa/accounts';
import { UploadDocuments } from '@docqa/indexing';
import { INDEXABLE_FILE_TYPES } from '@docqa/sources';
import { IndexAckDto, IndexingErrors } from './indexing.dto';
import { multipartParts } from './multipart-parts';

/** POST /index/upload (extension): index files sent with the request, source type UPLOAD. */
@ApiTags('Document API: indexing')
@Controller('api/v1/document_proxy')
@ApiTokenAuth()
export class UploadController {
  constructor(private readonly uploads: UploadDocuments) {}

  @Post('index/upload')
  @HttpCode(202)
  @RequireWrite()
  @ApiOperation({
    summary:
      "Extension: upload files into the docset's upload store and start an indexing run of it (source type UPLOAD); " +
      'answers like POST /index. A file name uploaded again replaces that document; files uploaded earlier stay. ' +
      'Limits: 100 files, INDEXING_MAX_FILE_BYTES each. Any error stores nothing and starts no run.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['docSetName', 'files'],
      properties: {
        docSetName: { type: 'string', maxLength: DOCSET_NAME_MAX, description: DOCSET_NAME_RULE },
        files: {
          type: 'array',
          items: { type: 'string', format: 'binary' },
          description: `One or more files, by extension: ${INDEXABLE_FILE_TYPES.join(', ')}.`,
        },
      },
    },
  })
  @ApiAcceptedResponse({ type: IndexAckDto })
  @IndexingErrors(400, 401, 403, 409, 503)
  @ApiPayloadTooLargeResponse({
    description:
      '`{ message, errorCode: "PAYLOAD_TOO_LARGE", field, limit, fileName? }`: too many or too large files',
  })
  @ApiUnsupportedMediaTypeResponse({
    description:
      '`{ message, errorCode: "UNSUPPORTED_MEDIA_TYPE", field?, fileName? }`: not multipart/form-data, or a file type that is not indexed',
  })
  upload(@CurrentAuth() auth: AuthContext, @Req() req: Request) {
    return this.uploads.upload(auth.accountId, multipartParts(req, this.uploads.limits), (name) =>
      isDocsetAllowed(auth, name),
    );
  }
}
