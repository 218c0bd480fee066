// Worker threads do not inherit the parent's `--import tsx` loader: register it, then load the TypeScript entry.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
