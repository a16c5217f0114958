// Types of figures.mjs (used by test/node/build/doc-figures.test.ts).
export interface CdnSizes {
  file: string;
  integrity: string;
  bytes: number;
  gzip: number;
  brotli: number;
}
export const FIGURES: {page: string; pattern: RegExp; text: (cdn: CdnSizes) => string}[];
export function cdnSizes(): CdnSizes;
export function checkFigures(write?: boolean): string[];
