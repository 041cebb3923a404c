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
      // Rows are typed by their table's row type (src/database/tables.ts); nothing in src is `any`.
      '@typescript-eslint/no-explicit-any': 'error',
      'max-lines': ['error', { max: 250, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
  {
    // Every statement names the type of its rows (a row type, a Pick of it, a named result); one run for
    // its effect is `execute`. The kernel's own plumbing (pg clients, migrations) is exempt.
    files: ['src/**/*.ts'],
    ignores: ['src/database/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression[callee.property.name=/^(query|prepared)$/][typeArguments=undefined]',
          message: 'State the row type: query<Row>(...) / prepared<Row>(...), or execute(...) for a statement run for its effect.',
        },
      ],
    },
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
