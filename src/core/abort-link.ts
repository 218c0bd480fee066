/**
 * A cancellation flag for the per-request hot path, cheaper than an AbortController: an AbortSignal sets up an
 * EventTarget on creation and per listener, where this is a plain EventEmitter. undici's `request()` accepts an
 * EventEmitter as `signal` (it reads `aborted` and `reason` and listens for 'abort'). A real AbortSignal is made
 * only on demand, for the APIs that need one (guardrail checks, retry sleeps, adapter `prepare`).
 */
import { EventEmitter } from 'node:events';

export class AbortLink extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
  #controller: AbortController | undefined;
  /** links aborted with this one; a plain array, not listeners, because there is rarely more than one */
  #children: AbortLink[] | undefined;

  /** an AbortSignal that aborts with this link; made on first use */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.#controller?.abort(reason);
    this.emit('abort');
    const children = this.#children;
    this.#children = undefined;
    if (children) for (const child of children) child.abort(reason);
  }

  /** aborts `child` (with this link's reason) when this link aborts, until `unlink` */
  link(child: AbortLink): void {
    if (this.aborted) return child.abort(this.reason);
    (this.#children ??= []).push(child);
  }

  unlink(child: AbortLink): void {
    const children = this.#children;
    if (!children) return;
    const index = children.indexOf(child);
    if (index >= 0) children.splice(index, 1);
  }
}
