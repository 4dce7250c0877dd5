// ESLint flat config for the web app. The one project-specific rule: only
// src/state/jotai.ts may import `jotai` (the excalidraw app-jotai pattern), so
// every atom is read and written through the same explicit store.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'test-results/', 'node_modules/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'jotai',
              message: 'Import atoms and hooks from src/state/jotai.ts, the one module that wraps jotai.',
            },
          ],
          patterns: [
            {
              group: ['jotai/*'],
              message: 'Import atoms and hooks from src/state/jotai.ts, the one module that wraps jotai.',
            },
          ],
        },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always'],
    },
  },
  {
    files: ['src/state/jotai.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['e2e/**/*.{js,mjs}', '*.config.{js,ts}'],
    languageOptions: { globals: globals.node },
  },
);
