// Starting local servers (redis-server, rabbitmq-server) on a busy machine: a port checked free can
// be taken before the server binds it, and a node can stop again at once. Such a start is undone by
// the starter itself and made again from scratch, on new ports.

/** `start()` again after a failure: at most `attempts` times, each failure said on stderr, the last one thrown. */
export async function withFreshStarts<T>(what: string, start: () => Promise<T>, attempts = 3): Promise<T> {
  let last: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      return await start();
    } catch (err) {
      last = err;
      process.stderr.write(`${what}: attempt ${attempt} failed (${(err as Error).message.slice(0, 600)}); ${attempt < attempts ? 'again on new ports' : 'giving up'}\n`);
    }
  }
  throw last;
}
