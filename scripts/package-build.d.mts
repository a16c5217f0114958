/** What `npm run build` writes that a test suite reads without building it itself. */
export declare const PACKAGE_BUILD_FILES: readonly string[];
