/**
 * Writes the embedded database the tests' in-memory gateways start from (initdb and this checkout's migrations,
 * dumped once per `npm test` by scripts/run-tests.mjs): node --import tsx scripts/test-seed.ts <file>
 */
import { dumpSeed } from '../src/storage/pglite-worker/template.ts';

const file = process.argv[2];
if (!file) throw new Error('usage: test-seed.ts <file>');
await dumpSeed(file);
