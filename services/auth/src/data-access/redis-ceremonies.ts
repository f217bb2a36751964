// The short-lived state of second-factor ceremonies in Redis. A WebAuthn challenge waits under a
// fresh token (a passkey sign-in: `webauthn:login:{<id>}`) or under the session that asked (adding a
// passkey: `webauthn:register:{<sid>}`), for a few minutes, and is taken back once (GETDEL): a
// replayed answer finds nothing. A session's recent proof of the password or a second factor
// (`step-up:{<sid>}`, holding the account's credential epoch of the proof) lets it add or remove
// factors for `stepUpMs`, and only while no credential change came after it.
import { randomBytes } from 'node:crypto';
import type { Redis } from '@acct/shared/redis';
import type { CeremonyState, Ceremonies } from '../domain/ports';

export class RedisCeremonies implements Ceremonies {
  constructor(
    private readonly redis: Redis,
    private readonly options: { ttlMs: number; stepUpMs: number },
  ) {}

  async begin(purpose: 'login' | 'register', key: string | undefined, state: CeremonyState): Promise<string> {
    const id = key ?? randomBytes(16).toString('base64url');
    await this.redis.set(ceremonyKey(purpose, id), JSON.stringify(state), 'PX', this.options.ttlMs);
    return id;
  }

  async finish(purpose: 'login' | 'register', key: string): Promise<CeremonyState | undefined> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(key)) return undefined;
    const raw = await this.redis.getdel(ceremonyKey(purpose, key));
    return raw ? (JSON.parse(raw) as CeremonyState) : undefined;
  }

  async markProof(sessionId: string, credentialEpoch: number): Promise<void> {
    await this.redis.set(stepUpKey(sessionId), `epoch:${credentialEpoch}`, 'PX', this.options.stepUpMs);
  }

  async recentProof(sessionId: string): Promise<number | undefined> {
    // A proof stored before epochs were kept ('1') is none: the session proves itself again.
    const match = /^epoch:(\d+)$/.exec((await this.redis.get(stepUpKey(sessionId))) ?? '');
    return match ? Number(match[1]) : undefined;
  }
}

const ceremonyKey = (purpose: string, id: string) => `webauthn:${purpose}:{${id}}`;
const stepUpKey = (sessionId: string) => `step-up:{${sessionId}}`;
