import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const SRC_UPWARD = [
  { group: ['**/runner/**', '**/runner/*'], message: 'src/ must not import from runner/' },
  { group: ['**/api/**', '**/api/*'], message: 'src/ must not import from api/' },
  { group: ['**/controller/**', '**/controller/*'], message: 'src/ must not import from controller/' },
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.ferrum/', '.releases/', '.test-build/', 'web/vendor/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  // Layering (docs/DESIGN.md): the domain in src/ never reaches up into the processes or the HTTP layer.
  { files: ['src/**'], rules: { 'no-restricted-imports': ['error', { patterns: SRC_UPWARD }] } },
  // ... and the core knows no domain: src/core/ imports nothing from another src/ folder.
  ...[1, 2, 3].map((depth) => ({
    files: [`src/core/${'*/'.repeat(depth - 1)}*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...SRC_UPWARD,
            {
              regex: `^(\\.\\./){${depth}}(?!core/)[^./]`,
              message: 'src/core/ must not import from a domain (src/auth, src/mq, ...): the domains import the core',
            },
          ],
        },
      ],
    },
  })),
  // The HTTP layer is given its context (api/context.ts); it never reaches up into the composition root.
  {
    files: ['api/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/controller/**', '**/controller/*'], message: 'api/ must not import from controller/' },
          ],
        },
      ],
    },
  },
  // Route inputs are typed from their schemas (api/type-provider.ts), never cast.
  {
    files: ['api/**', 'controller/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          ':matches(TSAsExpression, TSTypeAssertion) > MemberExpression',
          ':matches(TSAsExpression, TSTypeAssertion) > :matches(LogicalExpression, ChainExpression) > MemberExpression',
        ].map((cast) => ({
          selector: `${cast}[object.name="request"][property.name=/^(body|query|params|headers)$/]`,
          message:
            'Type route inputs from their schemas (ApiPlugin, WithParams in api/type-provider.ts) instead of casting',
        })),
      ],
    },
  },
  // Sizes a reader can hold (docs/DESIGN.md, "Conventions"): a file or a function longer than this is split.
  {
    files: ['src/**/*.ts', 'api/**/*.ts', 'controller/**/*.ts', 'runner/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 60 }],
    },
  },
  // The dashboard's browser modules: a page a reader can hold (issue #47), its functions shorter still.
  {
    files: ['web/**/*.js'],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 60 }],
    },
  },
  // The command line's own caps: a command group reads as a list of short definitions. The shared
  // API client (client/, issue #47) that it and the dashboard call keeps the same caps.
  {
    files: ['cli/**/*.ts', 'bin/**/*.ts', 'client/**/*.ts', 'client/**/*.js'],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 60 }],
    },
  },
  // `ferrum --help` stays quick: what every start loads (the command definitions) imports no
  // heavy module; the HTTP client, tables, zips and YAML load inside the actions (cli/action.ts),
  // and so does the shared API client (client/), which cli/context.ts hands to every action.
  {
    files: [
      'cli/commands/**/*.ts',
      'cli/program.ts',
      'cli/action.ts',
      'cli/completion.ts',
      'cli/options.ts',
      'bin/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['undici', 'cli-table3', 'yazl', 'yaml', 'ioredis', 'dockerode', 'fastify', 'bullmq', 'pino'],
              allowTypeImports: true,
              message: 'load it in the action (await import), so `ferrum --help` does not',
            },
            {
              regex: '/(context|api-client|output|code-upload|code-package|config)\\.js$',
              allowTypeImports: true,
              message: 'load it in the action (await import), so `ferrum --help` does not',
            },
            {
              regex: '^(\\.\\./)+client/',
              allowTypeImports: true,
              message:
                'the shared client comes with the action context (ctx.client), so `ferrum --help` does not load it',
            },
          ],
        },
      ],
    },
  },
  // No import circles (runtime ones; test/unit/import-cycles.test.ts also catches type-only ones).
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  // Tests wait on conditions (test/helpers/eventually.ts), never on fixed sleeps; a sleep that is
  // the point (nothing may happen within a window) says why in its eslint-disable comment.
  {
    files: ['test/**/*.ts'],
    ignores: ['test/helpers/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          'CallExpression[callee.name=/^(sleep|delay|pause|wait)$/][arguments.0.type="Literal"]',
          'CallExpression[callee.name="setTimeout"][arguments.0.type="Identifier"][arguments.1.type="Literal"]',
          'CallExpression[callee.name="setTimeout"][arguments.0.type="Identifier"][arguments.1.type="Identifier"]',
        ].map((selector) => ({
          selector,
          message: 'No fixed sleep in a test: wait on a condition (test/helpers/eventually.ts)',
        })),
      ],
    },
  },
  { files: ['bin/**', 'bench/**', 'scripts/**', 'test/**'], rules: { 'no-console': 'off' } },
  // Tests read JSON responses loosely on purpose.
  { files: ['test/**', 'bench/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  {
    files: ['web/**/*.js'],
    languageOptions: {
      globals: {
        document: 'readonly',
        window: 'readonly',
        location: 'readonly',
        sessionStorage: 'readonly',
        fetch: 'readonly',
        navigator: 'readonly',
        confirm: 'readonly',
        Node: 'readonly',
        FormData: 'readonly',
        URLSearchParams: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        EventSource: 'readonly',
      },
    },
  },
  { files: ['scripts/**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
);
