/** Which error convention a path belongs to (spec: "Errors"). */
export type Surface = 'document' | 'account';

export const DOCUMENT_API_PREFIX = '/api/v1/document_proxy';

export function surfaceOf(path: string): Surface {
  const p = path.split('?')[0];
  return p === DOCUMENT_API_PREFIX || p.startsWith(DOCUMENT_API_PREFIX + '/') ? 'document' : 'account';
}
