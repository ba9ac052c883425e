/**
 * How long a transaction waits for its CancelRequests to be delivered before it ends anyway: the
 * server or the path to it is stalled, and the statement's own timeout is then what stops it.
 */
export const CANCEL_DELIVERY_MS = 5_000;

/**
 * The CancelRequests sent for the statements of one transaction, which its ROLLBACK (or the
 * portal's Close) must wait for.
 *
 * A CancelRequest travels on a connection of its own and interrupts whatever its backend runs
 * when it lands. Sent for a statement that finished before it arrived, it landed on the
 * statement after: the transaction's ROLLBACK (the connection then went back to the pool in an
 * aborted transaction, and every statement after it failed), or whatever the next caller sent on
 * that connection. Once delivered (the driver's promise settles when the server closes the
 * cancel's connection, after it has signalled the backend), it has either stopped the statement
 * or reached a backend idle between statements, which ignores it.
 */
export class SentCancels {
  private readonly sent: Promise<unknown>[] = [];

  add(delivery: Promise<unknown>): void {
    this.sent.push(delivery.catch(() => undefined));
  }

  /** Resolves once every cancel sent so far has been delivered or has failed, or after CANCEL_DELIVERY_MS. */
  async delivered(): Promise<void> {
    if (this.sent.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.sent), new Promise((resolve) => (timer = setTimeout(resolve, CANCEL_DELIVERY_MS)))]);
    clearTimeout(timer);
  }
}
