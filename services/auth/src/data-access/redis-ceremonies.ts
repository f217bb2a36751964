// A signed-in session's short-lived state in Redis. The WebAuthn challenge of a passkey it is
// registering waits under the session (`webauthn:register:{<sid>}`) for a few minutes and is taken
// back once (GETDEL): a replayed answer finds nothing. Its recent proof of the password or a second
// factor (`step-up:{<sid>}`, holding the account's credential epoch of the proof) lets it add or
// remove factors for `stepUpMs`, and only while no credential change came after it.
import type { Redis } from '@acct/shared/redis';
import type { CeremonyState, Ceremonies } from '../domain/shared/ports';

export class RedisCeremonies implements Ceremonies {
  constructor(
    private readonly redis: Redis,
    private readonly options: { ttlMs: number; stepUpMs: number },
  ) {}

  async beginRegistration(sessionId: string, state: CeremonyState): Promise<void> {
    await this.redis.set(registrationKey(sessionId), JSON.stringify(state), 'PX', this.options.ttlMs);
  }

  async finishRegistration(sessionId: string): Promise<CeremonyState | undefined> {
    const raw = await this.redis.getdel(registrationKey(sessionId));
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

const registrationKey = (sessionId: string) => `webauthn:register:{${sessionId}}`;
const stepUpKey = (sessionId: string) => `step-up:{${sessionId}}`;
