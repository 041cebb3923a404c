/** How SWC compiles the TypeScript sources for Jest (jest.config.mjs) and for the global setup (ts-hooks.mjs). */
export const swcOptions = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'es6' },
};
