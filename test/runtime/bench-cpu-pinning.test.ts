/**
 * The benchmarks' CPU placement (bench/cpu-pinning.ts): the kernel's CPU list read right, the load side and the
 * processes measured given disjoint CPUs, and a child started through `taskset` running on its CPUs with the pid it
 * was spawned with (so the harness still stops its process group).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { allowedCpus, commandOnCpus, splitCpus } from '../../bench/cpu-pinning.ts';

describe('bench CPU pinning', () => {
  it('reads Cpus_allowed_list with ranges and single CPUs', () => {
    assert.deepEqual(allowedCpus('Name:\tnode\nCpus_allowed:\t4f\nCpus_allowed_list:\t0-3,6\n'), [0, 1, 2, 3, 6]);
    assert.deepEqual(allowedCpus('Cpus_allowed_list:\t5\n'), [5]);
    assert.deepEqual(allowedCpus('Name:\tnode\n'), []);
    assert.deepEqual(allowedCpus('Cpus_allowed_list:\tgarbage\n'), []);
  });

  it('gives the load side a quarter of the CPUs (at least one) and the processes measured the rest', () => {
    assert.equal(splitCpus([0]), null);
    assert.deepEqual(splitCpus([0, 1]), { load: '0', measured: '1' });
    assert.deepEqual(splitCpus([0, 1, 2, 3]), { load: '0', measured: '1,2,3' });
    assert.deepEqual(splitCpus([0, 1, 2, 3, 4, 5, 6, 7]), { load: '0,1', measured: '2,3,4,5,6,7' });
  });

  it('leaves the command alone without a plan', () => {
    assert.deepEqual(commandOnCpus(null, 'measured', 'node', ['x.js']), { command: 'node', args: ['x.js'] });
  });

  const cpus = allowedCpus(spawnSync('cat', ['/proc/self/status'], { encoding: 'utf8' }).stdout);
  const hasTaskset = spawnSync('taskset', ['-V']).status === 0;
  it('runs a child on its role\'s CPUs under the pid it was spawned with', { skip: cpus.length < 2 || !hasTaskset ? 'needs two CPUs and taskset' : false }, async () => {
    const plan = splitCpus(cpus)!;
    const line = commandOnCpus(plan, 'measured', process.execPath, ['-e', "process.stdout.write(process.pid + ' ' + require('fs').readFileSync('/proc/self/status', 'utf8').match(/Cpus_allowed_list:\\s*(\\S+)/)[1])"]);
    const child = spawn(line.command, line.args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await new Promise((resolve) => child.once('exit', resolve));
    const [pid, list] = out.split(' ');
    assert.equal(Number(pid), child.pid);
    assert.deepEqual(allowedCpus(`Cpus_allowed_list:\t${list}\n`), plan.measured.split(',').map(Number));
  });
});
