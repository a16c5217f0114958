/**
 * `definedOnly`: an object without its `undefined` entries, so that an absent value is
 * neither sent to the gateway as a key nor written over a stored one. Shared by the
 * request builders (`gateway-request.ts`) and the attempt state machine (`attempt-transitions.ts`).
 */

/** `fields` without its undefined entries. */
export function definedOnly<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(fields).filter(([, v]) => v !== undefined),
  ) as Partial<T>;
}
