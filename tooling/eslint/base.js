// Shared flat config: type-aware rules so that `any` cannot leak in through untyped values.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** @param {string} tsconfigRootDir the package folder, so type information comes from its tsconfig */
export function config(tsconfigRootDir) {
  return tseslint.config(
    { ignores: ['dist/**', 'drizzle/**', 'coverage/**', 'bin/**', '*.config.*'] },
    js.configs.recommended,
    ...tseslint.configs.strictTypeChecked,
    {
      languageOptions: { parserOptions: { projectService: true, tsconfigRootDir } },
      rules: {
        '@typescript-eslint/no-explicit-any': 'error',
        '@typescript-eslint/consistent-type-imports': 'error',
        '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
        '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
        '@typescript-eslint/no-unnecessary-condition': 'off',
        '@typescript-eslint/no-non-null-assertion': 'off',
        '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      },
    },
  );
}
