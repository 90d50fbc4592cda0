/** Search attributes registered on the Temporal namespace so operators can find runs by tenant. */
export const SEARCH_ATTRIBUTES = {
  DocqaAccountId: 'Keyword',
  DocqaDocSetName: 'Keyword',
  DocqaSourceType: 'Keyword',
} as const;

export const TEMPORAL_CLIENT = Symbol('TEMPORAL_CLIENT');
export const TEMPORAL_CONNECTION = Symbol('TEMPORAL_CONNECTION');
