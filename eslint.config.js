// Lint configuration: TypeScript-aware recommended rules for every part of the tree.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'data/**',
      'test-results/**',
      'custom-elements.json',
      // The documentation site's build output, VitePress's cache and the generated reference.
      'docs/.vitepress/dist/**',
      'docs/.vitepress/cache/**',
      'docs/.vitepress/.temp/**',
      'docs/reference/server/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {...globals.node, ...globals.browser},
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        {argsIgnorePattern: '^_', varsIgnorePattern: '^_'},
      ],
      'no-console': ['error', {allow: ['warn', 'error']}],
    },
  },
  {
    files: [
      'scripts/**',
      'sandbox/cli.ts',
      'server-example/**',
      'docs/snippets/**',
      'docs/.vitepress/**',
      'bench/**',
      'web-test-runner.config.mjs',
    ],
    rules: {'no-console': 'off'},
  },
);
