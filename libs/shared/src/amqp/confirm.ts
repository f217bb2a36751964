// A publish's confirm, waited for within a bound. amqplib waits for the broker's confirm without
// limit: a node that stops answering without closing the connection (stuck, or cut off behind a
// proxy that keeps the socket open) would hold every publish of the channel, and the outbox relay
// with it, until the heartbeat gave up, or for ever. Past the bound the publish fails (the caller
// retries it, the consumers drop a duplicate by its event id) and the channel is given up, so the
// next publish goes out on a new connection, to the next node.

/** How long a publish waits for the broker's confirm (5 s): a healthy broker answers in milliseconds. */
export const CONFIRM_TIMEOUT_MS = 5_000;

/**
 * Runs `send` (a confirmed publish, which calls `done` when the broker answers) and settles with the
 * broker's answer, or fails after `timeoutMs` and calls `giveUp` (once per publish that timed out).
 */
export function confirmWithin(send: (done: (err: unknown) => void) => void, timeoutMs: number, giveUp: () => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      reject(new Error(`RabbitMQ did not confirm the publish within ${timeoutMs} ms`));
      giveUp();
    }, timeoutMs);
    // The broker's answer, or a publish that threw; whatever comes after the first is ignored.
    const settle = (err: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err instanceof Error ? err : new Error(String(err)));
      else resolve();
    };
    try {
      send(settle);
    } catch (err) {
      settle(err ?? new Error('publish failed'));
    }
  });
}
