/**
 * A cluster worker's side of the IPC channel to the primary: requests with numbered replies, and the events the
 * primary pushes (kv messages, shutdown). When the primary goes away every pending request fails at once.
 */
import { EventEmitter } from 'node:events';
import { deserializeError, isClusterMessage, type ClusterEvent, type ClusterReply, type ClusterRequest } from './protocol.ts';

type Outgoing = ClusterRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

export interface WorkerChannel {
  request(message: Outgoing): Promise<unknown>;
  readonly events: EventEmitter<{ 'kv-message': [channel: string, message: string]; shutdown: [] }>;
}

export function createWorkerChannel(proc: NodeJS.Process = process): WorkerChannel {
  if (!proc.send) throw new Error('not a cluster worker: the process has no IPC channel');
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  const events: WorkerChannel['events'] = new EventEmitter();
  let nextId = 1;
  let gone: Error | undefined;

  proc.on('message', (message: unknown) => {
    if (!isClusterMessage(message)) return;
    if (message.gw === 'reply') {
      const reply = message as ClusterReply;
      const waiting = pending.get(reply.id);
      if (!waiting) return;
      pending.delete(reply.id);
      if (reply.error) waiting.reject(deserializeError(reply.error));
      else waiting.resolve(reply.result);
      return;
    }
    const event = message as ClusterEvent;
    if (event.gw === 'kv-message') events.emit('kv-message', event.channel, event.message);
    else if (event.gw === 'shutdown') events.emit('shutdown');
  });
  proc.on('disconnect', () => {
    gone = new Error('the cluster primary is gone');
    for (const waiting of pending.values()) waiting.reject(gone);
    pending.clear();
  });

  return {
    events,
    request(message) {
      if (gone) return Promise.reject(gone);
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        proc.send!({ ...message, id }, undefined, undefined, (error: Error | null) => {
          if (!error) return;
          pending.delete(id);
          reject(error);
        });
      });
    },
  };
}
