// What `npm run build` writes that a test suite reads without building it itself: the
// documentation tests (test/node/docs/site.ts) build the site from these. `npm test`
// (scripts/test.mjs) builds first when one is missing.
export const PACKAGE_BUILD_FILES = [
  'dist/cdn/pg-checkout.js',
  'dist/server/index.d.ts',
  'custom-elements.json',
];
