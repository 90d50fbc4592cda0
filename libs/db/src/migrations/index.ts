import { InitialSchema1763700000000 } from './1763700000000-initial-schema';

/** Every migration, in order. New migrations are appended here. */
export const MIGRATIONS = [InitialSchema1763700000000];
