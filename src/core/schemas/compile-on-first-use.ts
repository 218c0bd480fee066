/**
 * Ajv validators compiled when first used instead of when their module loads.
 *
 * The gateway has ~90 body schemas (the inference routes', every admin group's, the routing config's). Compiling all
 * of them as the modules loaded took ~0.35 s of CPU at every start (a test process's too: docs/performance.md,
 * ninth session), though a process may never see most of those routes. A server compiles the rest after it listens
 * (`compileRemaining`, one schema per turn of the event loop), so the first request on a route does not usually pay
 * for it either.
 */
import type { Ajv, ValidateFunction } from 'ajv';

/** Validators made and not compiled yet. */
const pending = new Set<() => unknown>();

/** A getter of the schema's validator: the first call compiles it (a bad schema throws there). */
export function compileOnFirstUse<T>(ajv: Ajv, schema: object): () => ValidateFunction<T> {
  let compiled: ValidateFunction<T> | undefined;
  const get = (): ValidateFunction<T> => {
    if (compiled === undefined) {
      compiled = ajv.compile<T>(schema);
      pending.delete(get);
    }
    return compiled;
  };
  pending.add(get);
  return get;
}

/** How many validators are still to compile (for the tests). */
export function pendingValidators(): number {
  return pending.size;
}

/** Compiles every pending validator now (a test that every schema compiles). */
export function compileAllNow(): void {
  for (const get of [...pending]) get();
}

/**
 * Compiles the pending validators one per turn of the event loop (setImmediate: requests that arrive meanwhile are
 * served between two schemas). Resolves, when none is left, with the errors of the schemas that did not compile
 * (each is left to fail again on its first use, and is not retried here).
 */
export function compileRemaining(): Promise<Error[]> {
  const failed: Error[] = [];
  return new Promise((resolve) => {
    const next = (): void => {
      const get = pending.values().next().value;
      if (get === undefined) return resolve(failed);
      try {
        get();
      } catch (error) {
        pending.delete(get);
        failed.push(error instanceof Error ? error : new Error(String(error)));
      }
      setImmediate(next);
    };
    setImmediate(next);
  });
}
