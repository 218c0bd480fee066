/**
 * startTestGateway() on one back-end of testBackends(): embedded PGlite, or a fresh PostgreSQL database that the
 * returned close() drops after closing the gateway. closeAll() closes several resources even when one fails.
 */
import type { TestBackend } from './databases.ts';
import { startTestGateway, type TestGateway } from './gateway.ts';

export async function startBackendGateway(
  backend: TestBackend,
  options: Omit<NonNullable<Parameters<typeof startTestGateway>[0]>, 'databaseUrl'> = {},
): Promise<TestGateway> {
  const database = await backend.create();
  let gateway: TestGateway;
  try {
    gateway = await startTestGateway({ ...options, ...(database.url ? { databaseUrl: database.url } : {}) });
  } catch (error) {
    await database.drop();
    throw error;
  }
  return { ...gateway, close: () => closeAll(() => gateway.close(), () => database.drop()) };
}

/** runs every closer in order, even after one throws, then rethrows the failure(s) */
export async function closeAll(...closers: Array<() => unknown>): Promise<void> {
  const errors: unknown[] = [];
  for (const close of closers) {
    try {
      await close();
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, 'several resources failed to close');
}
