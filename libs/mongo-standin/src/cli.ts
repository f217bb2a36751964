// Runs the stand-in as its own process: `node dist/cli.js [--port N] [--host H]`; prints its URL on one line.
import { startMongoStandin } from './server';

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

async function main(): Promise<void> {
  const port = Number(arg('port') ?? process.env.MONGO_STANDIN_PORT ?? 27017);
  const host = arg('host') ?? '127.0.0.1';
  const standin = await startMongoStandin({ port, host });
  process.stdout.write(
    `${JSON.stringify({ level: 'warn', message: `MongoDB stand-in (in-memory, NOT MongoDB: data is lost at exit) listening at ${standin.url}`, url: standin.url, timestamp: new Date().toISOString() })}\n`,
  );
  const stop = () => void standin.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`mongo-standin failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
