/**
 * Preloaded into the gateway by bench/profile.ts (PROFILE_HEAP=1): samples every allocation of the main thread with
 * V8's sampling heap profiler, keeping the samples of objects the GC has since collected (so it ranks allocation
 * churn, not what is retained), and writes the profile to HEAP_PROFILE_FILE when the process exits. Samples taken
 * before HEAP_PROFILE_START (a file whose existence starts the recording) are not taken: start-up is left out.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector';

const file = process.env.HEAP_PROFILE_FILE;
const startFlag = process.env.HEAP_PROFILE_START;
const stopFlag = process.env.HEAP_PROFILE_STOP;
// HEAP_PROFILE_RETAINED=1: only the samples of objects not yet collected when the profile is taken (under load):
// what survives scavenges and fills the old space
const retained = process.env.HEAP_PROFILE_RETAINED === '1';
const session = new Session();
session.connect();
let sampling = false;
const poll = setInterval(() => {
  if (sampling || !fs.existsSync(startFlag)) return;
  sampling = true;
  clearInterval(poll);
  session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: !retained, includeObjectsCollectedByMinorGC: !retained });
}, 50);
poll.unref();
function stop() {
  if (!sampling) return;
  sampling = false;
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (!error) fs.writeFileSync(file, JSON.stringify(result.profile));
  });
}
const stopPoll = setInterval(() => {
  if (stopFlag && fs.existsSync(stopFlag)) {
    clearInterval(stopPoll);
    stop();
  }
}, 50);
stopPoll.unref();
process.on('exit', stop);
