/**
 * A named prepared statement with binary parameters, run on a node-postgres pool with its messages written straight
 * to the connection's socket: the request log's batch (~1-2 MB in chunks, src/storage/repositories/request-logs-
 * binary.ts). Given as a value, node-postgres would take one Buffer for it (a copy of the chunks) and copy that again
 * into its Bind message: two copies of each batch on the main thread, ~10 µs a logged row in a CPU profile, into
 * freshly mapped memory (docs/performance.md, nineteenth session). Here the chunks go to the socket as they are.
 *
 * It is node-postgres's own way to run a query of one's own (a "submittable", as pg-cursor is): the client hands it
 * the connection when the query's turn comes and passes it the backend's answers. The statement is parsed once per
 * connection, as node-postgres does for a named query: its ParseComplete records the name on the connection.
 */
import type pg from 'pg';
import { bindExecutePieces, parseOnlyMessage, type BinaryParameter, type PreparedStatement } from './extended-protocol.ts';

/** What this module uses of node-postgres's Connection (its socket; the statements parsed on it, by name). */
interface PgConnection {
  stream: { cork(): void; uncork(): void; write(chunk: Uint8Array): boolean };
  parsedStatements: Record<string, string | undefined>;
}

class StatementRun {
  /** read by node-postgres: a ParseComplete marks `name` as parsed on the connection, with `text` */
  readonly name: string;
  readonly text: string;
  /** set by node-postgres (client.query's callback) */
  callback: ((error: Error | undefined) => void) | undefined;
  private finished = false;

  constructor(
    private readonly statement: PreparedStatement,
    private readonly params: readonly BinaryParameter[],
  ) {
    this.name = statement.name;
    this.text = statement.text;
  }

  submit(connection: unknown): void {
    const { stream, parsedStatements } = connection as PgConnection;
    const { statement } = this;
    // one write of every piece, as a single vectored write
    stream.cork();
    if (parsedStatements[statement.name] === undefined) stream.write(parseOnlyMessage(statement.name, statement.text, statement.parameterTypes));
    for (const piece of bindExecutePieces(statement.name, this.params)) stream.write(piece);
    stream.uncork();
  }

  // the statement returns no rows; these answers need nothing done
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}

  /** an ErrorResponse (the client drops the query then: the ReadyForQuery after the Sync is not passed on), or the connection's end */
  handleError(error: Error): void {
    this.finish(error);
  }

  handleReadyForQuery(): void {
    this.finish(undefined);
  }

  /** a COPY cannot start from this statement; answered as node-postgres answers an unexpected one */
  handleCopyInResponse(connection: { sendCopyFail(message: string): void }): void {
    connection.sendCopyFail('No source stream defined');
  }

  private finish(error: Error | undefined): void {
    if (this.finished) return;
    this.finished = true;
    this.callback?.(error);
  }
}

/**
 * Runs `statement` with `params` on a connection of `pool`; resolves when PostgreSQL has run it, rejects with its
 * error (a DatabaseError with its SQLSTATE `code`) otherwise. The chunks of a parameter must stay as they are until
 * then.
 */
export function runStatement(pool: pg.Pool, statement: PreparedStatement, params: readonly BinaryParameter[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const run = new StatementRun(statement, params);
    const callback = (error: Error | undefined) => (error ? reject(error) : resolve());
    // node-postgres's types know a submittable only as a query without values; its pool passes the callback on
    pool.query(run as never, undefined as never, callback as never);
  });
}
