/**
 * Constants and helpers shared by the benchmark's processes (mock upstream, bare proxy, orchestrator).
 * Importing this module has no side effects.
 */

/** The assistant text the mock upstream answers, whole or split across stream chunks. */
export const MOCK_REPLY = 'Hello from the bench mock upstream. This reply is fixed and short.';
export const MOCK_COMPLETION_ID = 'chatcmpl-bench-mock-0001';
export const MOCK_MODEL = 'gpt-4o-mini-2024-07-18';

/** Around 4 KB of user text: the size of a typical prompt with some context pasted in. */
export function makeUserText(bytes = 4096): string {
  const sentence =
    'The quick brown fox jumps over the lazy dog while the gateway inspects, routes and forwards this prompt. ';
  let text = '';
  let i = 0;
  while (text.length < bytes) text += `${i++}: ${sentence}`;
  return text.slice(0, bytes);
}

export function makeChatRequest(stream: boolean): Record<string, unknown> {
  return {
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: 'You are a concise assistant used for load testing.' },
      { role: 'user', content: makeUserText() },
    ],
    ...(stream ? { stream: true } : {}),
  };
}

/** Prints the single JSON line a child process uses to tell the orchestrator its port. */
export function announcePort(port: number): void {
  process.stdout.write(`${JSON.stringify({ port })}\n`);
}

/**
 * Child processes exit when the orchestrator goes away: on SIGINT/SIGTERM, and, when the orchestrator sets
 * BENCH_EXIT_ON_STDIN_END=1, when their stdin (a pipe from the orchestrator) closes, which also covers the
 * orchestrator being SIGKILLed. Run by hand, the children just wait for Ctrl-C.
 */
export function exitWithParent(close: () => void): void {
  let closing = false;
  const stop = (): void => {
    if (closing) return;
    closing = true;
    close();
    // Keep-alive sockets from the load generator would hold server.close() open; do not wait for them.
    setTimeout(() => process.exit(0), 200).unref();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  if (process.env.BENCH_EXIT_ON_STDIN_END === '1') {
    process.stdin.on('end', stop);
    process.stdin.on('error', stop);
    process.stdin.resume();
  }
}
