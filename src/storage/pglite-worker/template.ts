/**
 * A fresh embedded database from a template instead of initdb. PGlite's initdb (PostgreSQL's bootstrap, in
 * WebAssembly) takes ~5 s and grows the thread's WASM memory to ~700 MB that is never given back; opening a
 * database that already exists takes ~0.3 s and ~160 MB. So the build (`npm run build`) runs initdb once, into
 * dist/pglite-template/ (with the migrations applied, make-template.ts), and a first start copies that directory
 * into the data dir and opens it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import type { Db } from '../database.ts';
import { migrate } from '../migrate.ts';

/** Next to the compiled code: dist/pglite-template (the bundle is flat: scripts/build.mjs); absent under tsx. */
export const TEMPLATE_DIR = fileURLToPath(new URL('./pglite-template', import.meta.url));

/**
 * Creates the template in `dir`: an initdb'd database with this build's migrations applied (recorded in
 * gateway_migrations, so a first start has none left to run), cleanly closed.
 */
export async function makeTemplate(dir: string): Promise<void> {
  fs.rmSync(dir, { recursive: true, force: true });
  const pglite = new PGlite(dir);
  await pglite.waitReady;
  await migrate(drizzle(pglite) as unknown as Db);
  await pglite.close();
}

/**
 * Writes `file`: an in-memory database with this checkout's migrations applied, dumped as PGlite's data-dir tar. An
 * in-memory database opened with it as its seed (DatabaseOptions.seed) skips initdb: the tests start their embedded
 * gateways from one dump made per run (scripts/run-tests.mjs) instead of ~3 s of CPU each.
 */
export async function dumpSeed(file: string): Promise<void> {
  const pglite = new PGlite();
  await pglite.waitReady;
  await migrate(drizzle(pglite) as unknown as Db);
  const dump = await pglite.dumpDataDir('none');
  await pglite.close();
  const staging = `${file}.${process.pid}`;
  fs.writeFileSync(staging, Buffer.from(await dump.arrayBuffer()));
  fs.renameSync(staging, file);
}

/**
 * When `target` holds no database yet and the template exists, copies the template there (through a temporary
 * sibling renamed into place, so a crash mid-copy leaves no half database) and returns true.
 */
export function seedFromTemplate(target: string, template = TEMPLATE_DIR): boolean {
  if (fs.existsSync(path.join(target, 'PG_VERSION'))) return false;
  if (!fs.existsSync(path.join(template, 'PG_VERSION'))) return false;
  if (fs.existsSync(target) && fs.readdirSync(target).length > 0) return false; // not ours to overwrite
  const staging = `${target}.seed-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.cpSync(template, staging, { recursive: true });
  fs.rmSync(target, { recursive: true, force: true });
  fs.renameSync(staging, target);
  return true;
}

