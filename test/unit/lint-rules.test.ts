import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { scaled } from '../helpers/pace.js';

// The house rules that lint enforces (eslint.config.js), proven to fire on code that breaks them.
const ROOT = path.resolve(import.meta.dirname, '../..');
// Only the house rules: `npm run lint` runs the others, import cycles among them (the slow one).
const HOUSE_RULES = ['no-restricted-syntax', 'no-restricted-imports'];
const eslint = new ESLint({ cwd: ROOT, ruleFilter: ({ ruleId }) => HOUSE_RULES.includes(ruleId) });

async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result!.messages.map((message) => `${message.ruleId}: ${message.message}`);
}

describe('lint rules', { timeout: scaled(60_000) }, () => {
  it('src/ may not import from runner/, api/ or controller/', async () => {
    for (const layer of ['runner/runner.js', 'api/auth-hooks.js', 'controller/app-context.js']) {
      const found = await problems('src/mq/probe.ts', `import '../../${layer}';\n`);
      expect(found.join('\n'), layer).toMatch(/no-restricted-imports:.*src\/ must not import from/);
    }
  });

  it('src/core/ may not import from a domain (any other src/ folder), at any depth', async () => {
    const cases = [
      ['src/core/probe.ts', '../auth/quotas.js'],
      ['src/core/config/probe.ts', '../../mq/queues/project-bytes.js'],
      ['src/core/error-rows/deeper/probe.ts', '../../../worker/keys.js'],
    ];
    for (const [file, target] of cases) {
      const found = await problems(file!, `import '${target}';\n`);
      expect(found.join('\n'), target).toMatch(/no-restricted-imports:.*src\/core\/ must not import from a domain/);
    }
    expect(await problems('src/core/config/probe.ts', "import '../redis.js';\nimport './env.js';\n")).toEqual([]);
    expect(await problems('src/mq/probe.ts', "import '../auth/quotas.js';\n")).toEqual([]);
    const upward = await problems('src/core/probe.ts', "import '../../api/auth-hooks.js';\n");
    expect(upward.join('\n')).toMatch(/src\/ must not import from api\//);
  });

  it('api/ may not import from controller/', async () => {
    const found = await problems('api/mq-v3/probe.ts', "import '../../controller/app-context.js';\n");
    expect(found.join('\n')).toMatch(/no-restricted-imports:.*api\/ must not import from controller\//);
  });

  it('tests wait on conditions: a fixed sleep outside test/helpers/ needs a disable comment with its reason', async () => {
    const sleeps = [
      "import { sleep } from '../../src/core/time.js';\nawait sleep(500);\n",
      'await new Promise((resolve) => setTimeout(resolve, 200));\n',
      'export const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));\n',
    ];
    for (const code of sleeps) {
      const found = await problems('test/redis/mq/probe.test.ts', code);
      expect(found.join('\n'), code).toMatch(/no-restricted-syntax:.*No fixed sleep in a test/);
      expect(await problems('test/helpers/probe.ts', code), code).toEqual([]);
    }
    const waited = "import { eventually } from '../../helpers/eventually.js';\nawait eventually(() => true);\n";
    expect(await problems('test/redis/mq/probe.test.ts', waited)).toEqual([]);
  });

  it('route inputs are not cast: body, query and params are typed from the schemas', async () => {
    const code = [
      "import type { FastifyRequest } from 'fastify';",
      'export const body = (request: FastifyRequest) => (request.body as { a: string }).a;',
      'export const query = (request: FastifyRequest) => ((request.query ?? {}) as { a: string }).a;',
      'export const params = (request: FastifyRequest) => (request.params as { id: string }).id;',
      '',
    ].join('\n');
    const found = (await problems('api/probe.ts', code)).filter((line) => line.startsWith('no-restricted-syntax'));
    expect(found).toHaveLength(3);
    expect(found[0]).toMatch(/typed from their schemas|instead of casting/);
  });

  it('the code base itself passes these rules', async () => {
    const results = await eslint.lintFiles(['api', 'controller', 'src']);
    const broken = results.flatMap((result) =>
      result.messages
        .filter((message) => HOUSE_RULES.includes(message.ruleId ?? ''))
        .map((message) => `${path.relative(ROOT, result.filePath)}:${message.line} ${message.message}`),
    );
    expect(broken).toEqual([]);
  });
});
