import { ENGINES_VARIABLES } from './variables/engines';
import { INDEXING_VARIABLES } from './variables/indexing';
import { MODELS_VARIABLES } from './variables/models';
import { SERVER_VARIABLES } from './variables/server';
import { SURFACES_VARIABLES } from './variables/surfaces';

/**
 * The one place where configuration variables are declared (by area, in ./variables). `.env.example` and
 * docs/configuration.md are checked against this list by a unit test, so they cannot drift.
 */
export type ConfigKind = 'string' | 'port' | 'int' | 'bool' | 'url' | 'path' | 'enum';

export interface ConfigVariable {
  name: string;
  kind: ConfigKind;
  /** Default used when the variable is unset; undefined means "unset = embedded default or public endpoint". */
  default?: string;
  values?: readonly string[];
  secret?: boolean;
  description: string;
}

export const CONFIG_VARIABLES = [
  ...SERVER_VARIABLES,
  ...ENGINES_VARIABLES,
  ...INDEXING_VARIABLES,
  ...MODELS_VARIABLES,
  ...SURFACES_VARIABLES,
] as const satisfies readonly ConfigVariable[];

export type ConfigName = (typeof CONFIG_VARIABLES)[number]['name'];
