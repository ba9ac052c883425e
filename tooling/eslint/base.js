// Shared flat config: type-aware rules so that `any` cannot leak in through untyped values.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * @param {string} tsconfigRootDir the folder linted: a package's, whose tsconfig gives the types
 * @param {string[]} [projects] the programs that give the types instead (the workspace's, at its root)
 */
export function config(tsconfigRootDir, projects) {
  const types = projects === undefined ? { projectService: true } : { project: projects };
  return tseslint.config(
    {
      ignores: [
        '**/node_modules/**',
        '**/dist/**',
        '**/drizzle/**',
        '**/coverage/**',
        '**/bin/**',
        '**/*.config.*',
      ],
    },
    js.configs.recommended,
    ...tseslint.configs.strictTypeChecked,
    {
      languageOptions: { parserOptions: { ...types, tsconfigRootDir } },
      rules: {
        '@typescript-eslint/no-explicit-any': 'error',
        '@typescript-eslint/consistent-type-imports': 'error',
        '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
        '@typescript-eslint/no-unused-vars': [
          'error',
          { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
        ],
        '@typescript-eslint/no-unnecessary-condition': 'off',
        '@typescript-eslint/no-non-null-assertion': 'off',
        '@typescript-eslint/no-confusing-void-expression': [
          'error',
          { ignoreArrowShorthand: true },
        ],
      },
    },
    // JavaScript (the tooling's shared configs) is in no TypeScript program: linted without types
    { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  );
}
