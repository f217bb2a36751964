// Desktop configuration: its own MongoDB database, token verification and the revocation feed, the events exchange, sync limits.
import { z } from 'zod';
import { accessTokenVerifyEnv, configFragments, env, loadConfig, readSecrets } from '@acct/shared';

export const desktopSchema = z.object({
  ...configFragments.service({ host: '127.0.0.1', healthPort: 9082 }),
  PORT: env.port(3002),
  ...configFragments.mongo('desktop'),
  ...configFragments.events(),
  /** Prefix of the queue desktop consumes account events from (`<prefix>desktop.accounts`). */
  QUEUE_PREFIX: z.string().default(''),
  ...configFragments.outbox(),
  ...configFragments.body(),
  ...configFragments.revocations(),
  SYNC_MAX_CHANGES: env.int(500, 1),
  SYNC_MAX_VALUE_BYTES: env.int(64 * 1024, 16),
  SYNC_PAGE_SIZE: env.int(500, 1),
  LATEST_VERSION_MAX_AGE_SECONDS: env.int(60, 0),
  /** How long a replica reuses the latest release it read (0 reads the database every time). */
  RELEASE_CACHE_MS: env.int(2000, 0),
  ...accessTokenVerifyEnv,
});

const desktopConfig = desktopSchema.transform(readSecrets('JWT_PUBLIC_KEY'));

export type DesktopConfig = z.infer<typeof desktopConfig>;

export const loadDesktopConfig = (source: NodeJS.ProcessEnv = process.env): DesktopConfig => loadConfig(desktopConfig, source);
