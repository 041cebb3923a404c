// Lint of the whole project: typescript-eslint with type information, sizes
// that keep files and functions to one job, Prettier owning the layout.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', '.test-data/**', 'coverage/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
        // Type-only imports of injected classes would erase their decorator metadata.
        emitDecoratorMetadata: true,
        experimentalDecorators: true,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Rows are typed by their entities and select lists (src/database/select-list.ts); nothing in src is `any`.
      '@typescript-eslint/no-explicit-any': 'error',
      // Runtime namespaces stay out; an ambient one may fill a gap in a package's typings (src/compile-cache.ts).
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
      'max-lines': ['error', { max: 250, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
  {
    // A hand-written statement's rows are its select list's (src/database/select-list.ts: `query(LIST, text)`); one
    // whose columns are all computed states its row type (`query<{ n: number }>(text)`); one run for its effect is
    // `execute`. A row type naming an entity would be a promise the select list does not keep: take the list.
    // The kernel's own plumbing (pg clients, migrations) is exempt.
    files: ['src/**/*.ts'],
    ignores: ['src/database/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression[callee.property.name="query"][typeArguments=undefined][arguments.0.type=/^(Literal|TemplateLiteral)$/]',
          message: 'Give the rows a type: query(LIST, text) with a select list, query<Row>(text) for computed columns, or execute(text).',
        },
        {
          selector:
            'CallExpression[callee.property.name="prepared"][typeArguments=undefined][arguments.1.type=/^(Literal|TemplateLiteral)$/]',
          message: 'Give the rows a type: prepared(name, LIST, text, values) with a select list, or prepared<Row>(name, text, values).',
        },
        {
          selector: 'CallExpression[callee.property.name=/^(query|prepared)$/] > TSTypeParameterInstantiation Identifier[name=/Entity$/]',
          message: "An entity's columns come from a select list (selectList(Entity, alias, [...])), not from a stated row type.",
        },
      ],
    },
  },
  {
    // A package is used through its entry point, never a private path (its cjs/, types/, dist/ files); the
    // database kernel keeps its own exception. Nested members are declared with @Nested (src/common/validation/nested.ts),
    // which also records the nested class where the shape checks read it.
    files: ['src/**/*.ts'],
    ignores: ['src/database/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ regex: '^(?!node:)(@[^/]+/)?[^@./][^/]*/.+', message: "A package's private path: import its entry point." }],
          paths: [
            {
              name: 'class-transformer',
              importNames: ['Type'],
              message: 'Declare a nested member with @Nested (common/validation/nested.ts).',
            },
            {
              name: 'class-validator',
              importNames: ['ValidateNested'],
              message: 'Declare a nested member with @Nested (common/validation/nested.ts).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/common/validation/nested.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // Tests and benches read rows and documents loosely; src may not.
    files: ['test/**/*.ts', '**/*.spec.ts', 'bench/**', 'migrations/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Specs hold many cases in one describe; their size says nothing about a job.
    files: ['test/**/*.ts', '**/*.spec.ts', 'bench/**', 'migrations/**'],
    rules: { 'max-lines': 'off', 'max-lines-per-function': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The console's one browser script (served as it is, no build step).
    files: ['src/console/ui/**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
  },
  prettier,
);
