import { ESLint } from 'eslint';
import * as path from 'node:path';
import tseslint from 'typescript-eslint';

const { browserGlobalsConfig } = require('./browser-globals.js');

const ROOT = path.resolve(__dirname, '../..');

/** The browser-globals rule alone (no type-aware rules). */
const eslint = new ESLint({
  cwd: ROOT,
  overrideConfigFile: true,
  overrideConfig: [
    { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
    browserGlobalsConfig,
  ],
});

async function errors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  return result.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe('browser globals lint (the widget brings DOM types into the program)', () => {
  it('fails server code that uses a browser global', async () => {
    expect(await errors('libs/rag/src/x.ts', 'export const t = document.title;\n')).toEqual([
      expect.stringContaining(
        "no-restricted-globals: Unexpected use of 'document'. document is a browser global",
      ),
    ]);
    expect(await errors('apps/api/src/chatbot/x.ts', 'export const w = window.innerWidth;\n')).toHaveLength(
      1,
    );
    expect(await errors('workflows/src/x.ts', 'export const l = localStorage.length;\n')).toHaveLength(1);
  });

  it('lets the widget use them, and server code use its own variables of those names', async () => {
    expect(
      await errors(
        'apps/api/src/widget/widget.client.ts',
        'export const t = document.title + window.name;\n',
      ),
    ).toEqual([]);
    expect(
      await errors(
        'libs/rag/src/x.ts',
        'export function f(document: { title: string }) {\n  return document.title;\n}\n',
      ),
    ).toEqual([]);
  });
});
