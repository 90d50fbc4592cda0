import { CONFIG_VARIABLES, ConfigVariable } from './config.schema';

const vars = CONFIG_VARIABLES as readonly ConfigVariable[];

/** `.env.example`: every variable with its default and meaning. */
export function renderEnvExample(): string {
  const lines = [
    '# DocQA configuration. Generated from libs/common/src/config/config.schema.ts by `npm run config:docs`.',
    '# Unset variables use the embedded default (or the public production endpoint).',
    '',
  ];
  for (const v of vars) {
    lines.push(`# ${v.description}${v.values ? ` One of: ${v.values.join(', ')}.` : ''}`);
    lines.push(v.default !== undefined ? `${v.name}=${v.default}` : `# ${v.name}=`);
    lines.push('');
  }
  return lines.join('\n');
}

/** docs/configuration.md: one table of every variable. */
export function renderConfigTable(): string {
  const rows = vars.map(
    (v) =>
      `| \`${v.name}\` | ${v.kind}${v.values ? ` (${v.values.join(', ')})` : ''} | ${v.default !== undefined ? `\`${v.default}\`` : 'unset'} | ${v.secret ? 'yes' : ''} | ${v.description.replace(/\|/g, '\\|')} |`,
  );
  return [
    '# Configuration',
    '',
    'Generated from `libs/common/src/config/config.schema.ts` by `npm run config:docs`; a unit test fails',
    'when this table and the schema drift apart. A bad value stops the process at start with a message',
    'naming the variable.',
    '',
    '| variable | type | default | secret | meaning |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
