// Types of undocumented.mjs (used by test/node/api/documented.test.ts).
import type {CompilerOptions} from 'typescript';
export const DOCUMENTED_ENTRIES: Record<string, string>;
export const PENDING: Record<string, string>;
export const EXAMPLES_REQUIRED: string[];
export function exportsWithoutExample(
  entries: Record<string, string>,
  options: CompilerOptions,
  baseDir?: string,
): string[];
export function exampleCode(
  entries: Record<string, string>,
  options: CompilerOptions,
  baseDir?: string,
): {where: string; code: string}[];
export function undocumentedExports(
  entries: Record<string, string>,
  options: CompilerOptions,
  baseDir?: string,
): string[];
export function projectOptions(): CompilerOptions;
