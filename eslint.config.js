import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const FLOORS = {
  domain: ['schemas', 'infra', 'pipelines', 'api', 'services', 'app'],
  schemas: ['infra', 'pipelines', 'api', 'services', 'app'],
  infra: ['schemas', 'pipelines', 'api', 'services', 'app'],
  pipelines: ['api', 'services', 'app'],
  api: ['services', 'app'],
  services: ['app'],
  // The studio's browser code: the language's tables from domain/ and nothing that runs on the server.
  studio: ['infra', 'pipelines', 'api', 'services', 'app'],
};

function floors() {
  return Object.entries(FLOORS).map(([floor, above]) => {
    // The domain's input types are inferred from the wire schemas (the single source of every body):
    // the domain may name them as types, which leave no import behind at run time.
    const typesOnly = floor === 'domain' || floor === 'studio' ? ['schemas'] : [];
    const pattern = (names, allowTypeImports) => ({
      regex: `(^|/)(${names.join('|')})/`,
      allowTypeImports,
      message: `${floor}/ imports only its own floor and those below it (domain < schemas, infra < pipelines < api < services < app)${allowTypeImports ? '; the wire schemas only as types' : ''}.`,
    });
    const patterns = [pattern(above.filter((n) => !typesOnly.includes(n)), false)];
    if (typesOnly.length) patterns.push(pattern(typesOnly, true));
    return {
      files: [`${floor}/**/*.ts`],
      ignores: ['**/*.test.ts'],
      rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] },
    };
  });
}

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'data/**', '.cache/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  { files: ['bench/**', 'infra/scripts/**', 'test/**'], rules: { 'no-console': 'off' } },
  // Floors, bottom up: domain (pure) < schemas, infra < pipelines < api < services < app. A file
  // imports only its own floor and those below; one importing upward fails lint.
  ...floors(),
  // Plain Node scripts: TypeScript checks globals in .ts files, Node provides these.
  { files: ['**/*.mjs'], languageOptions: { globals: { URL: 'readonly', console: 'readonly', process: 'readonly' } } },
);
