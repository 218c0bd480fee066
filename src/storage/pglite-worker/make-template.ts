/**
 * The build's step that makes the embedded database's template (template.ts): `node dist/make-template.js <dir>`
 * (scripts/build.mjs runs it); an existing <dir> is replaced.
 */
import path from 'node:path';
import { makeTemplate } from './template.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: make-template.js <dir>');
await makeTemplate(path.resolve(dir));
