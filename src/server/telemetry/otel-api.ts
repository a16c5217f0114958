/**
 * `@opentelemetry/api`, an optional peer dependency, loaded once when it is installed.
 * The companion instruments itself through that API only (traces, metrics, context
 * propagation); the API is a no-op until the application registers an OpenTelemetry SDK.
 * A merchant who has not installed the package pays nothing and sees nothing change: the
 * loader answers `undefined` and every instrument in this folder does nothing. Any other
 * failure while loading it (a broken install) is thrown, not hidden.
 */
import {createRequire} from 'node:module';
import type * as OtelApiModule from '@opentelemetry/api';

/** The `@opentelemetry/api` module. */
export type OtelApi = typeof OtelApiModule;

/** The package name, in one place. */
export const OTEL_API = '@opentelemetry/api';

/** The error means `name` itself is missing (not one of its own dependencies). */
function isMissing(error: unknown, name: string): boolean {
  const e = error as {code?: unknown; message?: unknown} | null;
  return (
    (e?.code === 'ERR_MODULE_NOT_FOUND' || e?.code === 'MODULE_NOT_FOUND') &&
    typeof e.message === 'string' &&
    e.message.includes(`'${name}'`)
  );
}

/**
 * Loads `@opentelemetry/api` with `load` (Node's `require` here), or answers `undefined`
 * when it is not installed. The API keeps its registrations on `globalThis`, so this copy
 * sees the SDK an application registered through its own import of the package.
 */
export function loadOtelApi(
  load: (name: string) => unknown = createRequire(import.meta.url),
): OtelApi | undefined {
  try {
    return load(OTEL_API) as OtelApi;
  } catch (error) {
    if (isMissing(error, OTEL_API)) return undefined;
    throw error;
  }
}
