import { DomainError } from '@docqa/common';
import type { SourceFolderFilter } from '@docqa/catalog';
import { normalizeFolderPath } from './sharepoint-credentials';
import { sharePointSourceId } from './sharepoint.connector';

const NAMES = ['siteId', 'driveId', 'folderPath'] as const;

/**
 * The SharePoint folder scope of `GET /index/progress/{docSetName}?siteId=&driveId=&folderPath=`:
 * all three together, or none (undefined). Some but not all is a 400 naming the missing ones.
 */
export function sharePointFolderFilter(query: Record<string, unknown>): SourceFolderFilter | undefined {
  const given = NAMES.filter((n) => query[n] !== undefined);
  if (given.length === 0) return undefined;
  for (const n of given)
    if (typeof query[n] !== 'string' || (n !== 'folderPath' && (query[n] as string).length === 0))
      throw DomainError.validation(n, `${n} must be a single non-empty string`);
  if (given.length < NAMES.length) {
    const missing = NAMES.filter((n) => query[n] === undefined);
    throw DomainError.validation(
      missing[0],
      `siteId, driveId and folderPath scope progress to a SharePoint folder together; missing: ${missing.join(', ')}`,
    );
  }
  const siteId = query.siteId as string;
  const driveId = query.driveId as string;
  if (siteId.length > 512 || driveId.length > 256 || !/^[A-Za-z0-9!_-]+$/.test(driveId))
    throw DomainError.validation('driveId', 'driveId is not a Microsoft Graph drive id');
  const folder = normalizeFolderPath(query.folderPath as string, 'folderPath');
  return {
    sourceType: 'SHAREPOINT',
    sourceIdPrefix: sharePointSourceId(driveId, folder ? folder + '/' : ''),
    metadata: { siteId, driveId },
  };
}
