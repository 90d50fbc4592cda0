import busboy from 'busboy';
import type { Request } from 'express';
import { DomainError, ErrorCode } from '@docqa/common';
import type { UploadPart } from '@docqa/indexing';

/** Bounds of a form's non-file parts (only `docSetName` is accepted: 200 code points fit). */
const FIELD_VALUE_MAX_BYTES = 1024;
const FIELDS_MAX = 10;

/**
 * The parts of a multipart/form-data request as busboy parses them off the socket, one at a time:
 * a file part's stream must be read (or the iteration ended) before the next part arrives, so
 * files stream through and never sit whole in memory. Ending the iteration early (an invalid
 * part) stops parsing and discards the rest of the body, so the error response can be sent.
 */
export async function* multipartParts(
  req: Request,
  limits: { maxFiles: number; maxFileBytes: number },
): AsyncGenerator<UploadPart> {
  if (!/^multipart\/form-data\s*;/i.test(req.headers['content-type'] ?? ''))
    throw new DomainError(
      ErrorCode.UNSUPPORTED_MEDIA_TYPE,
      'Send multipart/form-data with the fields docSetName and files',
    );
  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      limits: {
        fieldNameSize: 100,
        fieldSize: FIELD_VALUE_MAX_BYTES,
        fields: FIELDS_MAX,
        // one past each limit, so the request that passes it is seen and refused by the use case
        files: limits.maxFiles + 1,
        fileSize: limits.maxFileBytes + 1,
        parts: limits.maxFiles + 1 + FIELDS_MAX,
        headerPairs: 20,
      },
    });
  } catch {
    throw DomainError.validation('body', 'The multipart/form-data body has no boundary');
  }
  const queue: Array<UploadPart | DomainError | 'end'> = [];
  let wake: (() => void) | null = null;
  const push = (item: UploadPart | DomainError | 'end') => {
    queue.push(item);
    wake?.();
    wake = null;
  };
  bb.on('field', (name, value, info) =>
    push({ kind: 'field', name, value, truncated: info.nameTruncated || info.valueTruncated }),
  );
  bb.on('file', (field, stream, info) =>
    push({ kind: 'file', field, fileName: info.filename ?? '', stream }),
  );
  bb.on('fieldsLimit', () =>
    push(DomainError.validation('body', 'Only the fields docSetName and files are accepted')),
  );
  bb.on('close', () => push('end'));
  bb.on('error', () => push(DomainError.validation('body', 'The multipart/form-data body is malformed')));
  // A client that goes away mid-body: the file being staged fails, so nothing is kept.
  const onClose = () => {
    if (!req.complete) bb.destroy(new Error('The request was aborted'));
  };
  req.once('close', onClose);
  req.pipe(bb);
  try {
    for (;;) {
      while (!queue.length) await new Promise<void>((resolve) => (wake = resolve));
      const item = queue.shift() as UploadPart | DomainError | 'end';
      if (item === 'end') return;
      if (item instanceof DomainError) throw item;
      yield item;
    }
  } finally {
    req.off('close', onClose);
    req.unpipe(bb);
    for (const item of queue) if (typeof item === 'object' && 'stream' in item) item.stream.resume();
    // Read and drop the rest of the body: the response can then be sent on this connection.
    req.resume();
  }
}
