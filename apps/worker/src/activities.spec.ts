import { bundleWorkflowCode } from '@temporalio/worker';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { activitiesOf } from '@docqa/indexing';
import { ACTIVITY_CLASSES } from './activities';
import { WORKFLOW_BUNDLER_OPTIONS, WORKFLOWS_PATH } from './workflow-bundle';

const WORKFLOWS_DIR = path.resolve(__dirname, '../../../workflows/src');

/** Names destructured from every `proxyActivities(...)` / `proxyLocalActivities(...)` call in workflows/src. */
function proxiedActivityNames(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of fs
    .readdirSync(WORKFLOWS_DIR)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))) {
    const src = ts.createSourceFile(
      file,
      fs.readFileSync(path.join(WORKFLOWS_DIR, file), 'utf8'),
      ts.ScriptTarget.ES2022,
    );
    const visit = (node: ts.Node) => {
      if (
        ts.isVariableDeclaration(node) &&
        node.initializer &&
        ts.isCallExpression(node.initializer) &&
        /^proxy(Local)?Activities$/.test(node.initializer.expression.getText(src))
      ) {
        if (!ts.isObjectBindingPattern(node.name))
          throw new Error(`${file}: destructure proxyActivities() so its activity names can be checked`);
        for (const el of node.name.elements) found.set((el.propertyName ?? el.name).getText(src), file);
      }
      ts.forEachChild(node, visit);
    };
    visit(src);
  }
  return found;
}

function registeredActivityNames(): string[] {
  return ACTIVITY_CLASSES.flatMap((cls) => Object.keys(activitiesOf(Object.create(cls.prototype) as object)));
}

describe('worker activity registration', () => {
  it('registers every activity a workflow proxies', () => {
    const registered = new Set(registeredActivityNames());
    const proxied = proxiedActivityNames();
    expect(proxied.size).toBeGreaterThan(5);
    const missing = [...proxied].filter(([name]) => !registered.has(name)).map(([n, f]) => `${n} (${f})`);
    expect(missing).toEqual([]);
  });

  it('has no two activity classes with the same method name', () => {
    const names = registeredActivityNames();
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  it('bundles the workflows (path aliases, import type only, no Node built-ins)', async () => {
    const { code } = await bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      logger: quietLogger,
      ...WORKFLOW_BUNDLER_OPTIONS,
    });
    expect(code).toContain('indexDocsetWorkflow');
    expect(code).toContain('indexDocumentWorkflow');
  }, 120_000);
});

const noop = () => undefined;
const quietLogger = { trace: noop, debug: noop, info: noop, warn: noop, error: noop, log: noop };
