import { InitialSchema1763856000000 } from './1763856000000-initial-schema';

/** Every migration, in order. Listed explicitly so ts-node, jest and dist all find them. */
export const MIGRATIONS = [InitialSchema1763856000000];
