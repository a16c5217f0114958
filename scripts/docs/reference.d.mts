// Types of reference.mjs (used by scripts/docs/serve.ts).
export const REFERENCE_DIR: string;
export function writeServerReference(out?: string): Promise<string>;
