import { ESLint } from 'eslint';
import * as path from 'node:path';
import boundaries from 'eslint-plugin-boundaries';
import tseslint from 'typescript-eslint';

const layering = require('./layering.js');

const ROOT = path.resolve(__dirname, '../..');

/** The layering rule alone (no type-aware rules, so the check takes a second, not a TS program). */
const eslint = new ESLint({
  cwd: ROOT,
  overrideConfigFile: true,
  overrideConfig: [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      plugins: { boundaries },
      settings: layering.layeringSettings,
      rules: { 'boundaries/dependencies': ['error', layering.layeringPolicies({ specs: false })] },
    },
  ],
});

async function layeringErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  return result.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe('import layering lint (docs/conventions.md)', () => {
  it('fails a lib importing a lib above it, by alias or by relative path', async () => {
    expect(
      await layeringErrors(
        'libs/db/src/index.ts',
        "import { StartIndexing } from '@docqa/indexing';\nexport { StartIndexing };\n",
      ),
    ).toEqual([expect.stringContaining('boundaries/dependencies: Wrong-way import')]);
    expect(
      await layeringErrors('libs/common/src/index.ts', "export { DataSourceModule } from '../../db/src';\n"),
    ).toEqual([expect.stringContaining('boundaries/dependencies')]);
    expect(
      await layeringErrors(
        'libs/indexing/src/index.ts',
        "import { Foo } from '@docqa/chatbot';\nexport { Foo };\n",
      ),
    ).toHaveLength(1);
  });

  it('fails libs importing apps or workflows, and workflows importing lib values', async () => {
    expect(
      await layeringErrors('libs/rag/src/index.ts', "export * from '../../../apps/api/src/app.module';\n"),
    ).toHaveLength(1);
    expect(
      await layeringErrors('libs/indexing/src/index.ts', "export * from '../../../workflows/src';\n"),
    ).toHaveLength(1);
    expect(
      await layeringErrors(
        'workflows/src/index.ts',
        "import { StartIndexing } from '@docqa/indexing';\nexport { StartIndexing };\n",
      ),
    ).toHaveLength(1);
  });

  it('fails one surface of the API importing another', async () => {
    expect(
      await layeringErrors(
        'apps/api/src/chatbot/chatbot.controller.ts',
        "export { AskDto } from '../document-proxy/ask.dto';\n",
      ),
    ).toHaveLength(1);
    expect(
      await layeringErrors(
        'apps/api/src/chatbot/chatbot.controller.ts',
        "export { answerOrStream } from '../common/sse';\n",
      ),
    ).toEqual([]);
  });

  it('passes the documented directions', async () => {
    expect(
      await layeringErrors(
        'libs/db/src/index.ts',
        "import { DomainError } from '@docqa/common';\nexport { DomainError };\n",
      ),
    ).toEqual([]);
    expect(
      await layeringErrors(
        'workflows/src/index.ts',
        "import type { StartIndexing } from '@docqa/indexing';\nimport { RUN_FAILURES } from '@docqa/workflow-contract';\nexport type X = StartIndexing;\nexport { RUN_FAILURES };\n",
      ),
    ).toEqual([]);
    expect(
      await layeringErrors(
        'apps/api/src/main.ts',
        "import { ChatbotModule } from '@docqa/chatbot';\nexport { ChatbotModule };\n",
      ),
    ).toEqual([]);
  });

  it('is switched on for every TypeScript file by eslint.config.mjs', async () => {
    const project = new ESLint({ cwd: ROOT });
    for (const file of [
      'libs/db/src/index.ts',
      'workflows/src/index.ts',
      'apps/api/src/main.ts',
      'libs/db/src/x.spec.ts',
    ]) {
      const config = await project.calculateConfigForFile(path.join(ROOT, file));
      expect(config.rules['boundaries/dependencies']?.[0]).toBe(2);
    }
  });
});
