// The bot checks a deployment may turn on (BOT_CHECK), behind the domain's BotCheck port.
//
// ALTCHA (altcha-lib, v2 proof of work): a challenge is signed with a key every replica has, names a
// PBKDF2-SHA-256 cost and a derived-key prefix, and expires; the client tries counters until one
// derives a key with that prefix (about half of BOT_CHECK_ALTCHA_WORK rounds, in the page's Web
// Crypto). The server picked the counter, so it checks an answer with two HMACs and no derivation, and
// a solved challenge passes once: its signature is kept in Redis until it would have expired.
//
// Turnstile and hCaptcha: their widget gives the page a token; their siteverify says whether it holds
// (the secret key, the token, the client's address). A siteverify that does not answer is a 503, never
// "you are a bot".
import { createHmac } from 'node:crypto';
import type { Redis } from '@acct/shared/redis';
import { errors } from '@acct/shared';
import type { BotChallenge, BotCheck } from '../domain/shared/ports';

// The package's `exports` name its CommonJS build, which Node's require() reads; the types are read
// from that build's own files (this project's TypeScript resolves modules as Node 10 did).
type Altcha = typeof import('altcha-lib/dist/cjs/v2/index');
type Pbkdf2 = typeof import('altcha-lib/dist/cjs/v2/algorithms/pbkdf2');
// Loaded at first use: a deployment without a bot check never loads the library.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const altcha = (): Altcha => require('altcha-lib') as Altcha;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const pbkdf2 = (): Pbkdf2 => require('altcha-lib/algorithms/pbkdf2') as Pbkdf2;

export const NO_BOT_CHECK: BotCheck = {
  kind: 'off',
  challenge: async () => ({ kind: 'off' }),
  passes: async () => true,
};

export interface AltchaSettings {
  /** The most rounds a client may need (it needs about half, on average). */
  work: number;
  /** PBKDF2 iterations per round. */
  cost: number;
  ttlSeconds: number;
  /** Signs challenges (and, derived from it, their keys). */
  key: string;
}

const ALGORITHM = 'PBKDF2/SHA-256';

/** A challenge and its solution, as the client sends them: base64 of `{"challenge":…,"solution":…}` (the ALTCHA widget's payload). */
interface Payload {
  challenge: { parameters: Record<string, unknown>; signature?: string };
  solution: { counter: number; derivedKey: string };
}

function readPayload(answer: string): Payload | undefined {
  try {
    const value = JSON.parse(Buffer.from(answer, 'base64').toString('utf8')) as Payload;
    if (typeof value?.challenge?.signature !== 'string' || typeof value.challenge.parameters !== 'object' || value.challenge.parameters === null) return undefined;
    if (!Number.isInteger(value.solution?.counter) || typeof value.solution.derivedKey !== 'string') return undefined;
    return value;
  } catch {
    return undefined;
  }
}

export class AltchaBotCheck implements BotCheck {
  readonly kind = 'altcha' as const;
  private readonly signatureKey: string;
  private readonly keySignatureKey: string;

  constructor(
    private readonly redis: Redis,
    private readonly settings: AltchaSettings,
  ) {
    // Two keys from one: the challenge's signature, and the derived key's (so that a check needs no derivation).
    this.signatureKey = createHmac('sha256', settings.key).update('altcha challenge').digest('base64url');
    this.keySignatureKey = createHmac('sha256', settings.key).update('altcha derived key').digest('base64url');
  }

  async challenge(): Promise<BotChallenge> {
    const { createChallenge, randomInt } = altcha();
    const challenge = await createChallenge({
      algorithm: ALGORITHM,
      cost: this.settings.cost,
      counter: randomInt(Math.ceil(this.settings.work / 2), this.settings.work),
      deriveKey: pbkdf2().deriveKey,
      expiresAt: new Date(Date.now() + this.settings.ttlSeconds * 1000),
      hmacSignatureSecret: this.signatureKey,
      hmacKeySignatureSecret: this.keySignatureKey,
    });
    return { kind: 'altcha', challenge };
  }

  async passes(answer: string): Promise<boolean> {
    const payload = readPayload(answer);
    if (!payload) return false;
    // The client wrote every field: whatever the library makes of a hostile one is a refusal, never a 500.
    const verified = await altcha()
      .verifySolution({
        challenge: payload.challenge as never,
        solution: payload.solution as never,
        deriveKey: pbkdf2().deriveKey,
        hmacSignatureSecret: this.signatureKey,
        hmacKeySignatureSecret: this.keySignatureKey,
      })
      .then((result) => result.verified, () => false);
    if (!verified) return false;
    // Once: the first request with this solved challenge takes it.
    const expiresAt = Number(payload.challenge.parameters.expiresAt);
    const seconds = Math.max(1, Math.ceil(expiresAt - Date.now() / 1000));
    return (await this.redis.set(`bot-check:${payload.challenge.signature}`, '1', 'EX', seconds, 'NX')) === 'OK';
  }
}

export interface WidgetSettings {
  kind: 'turnstile' | 'hcaptcha';
  siteKey: string;
  secretKey: string;
  verifyUrl: string;
  /** The widget's script, for the pages to load. */
  script: string;
  /** How long siteverify may take (5 s). */
  timeoutMs?: number;
}

/** Turnstile's or hCaptcha's widget: the token checked with their siteverify (form-encoded; both answer `{"success": boolean}`). */
export class SiteverifyBotCheck implements BotCheck {
  constructor(private readonly settings: WidgetSettings) {}

  get kind(): 'turnstile' | 'hcaptcha' {
    return this.settings.kind;
  }

  async challenge(): Promise<BotChallenge> {
    return { kind: this.settings.kind, siteKey: this.settings.siteKey, script: this.settings.script };
  }

  async passes(answer: string, ip: string): Promise<boolean> {
    const form = new URLSearchParams({ secret: this.settings.secretKey, response: answer, ...(ip && ip !== 'unknown' ? { remoteip: ip } : {}) });
    let res: Response;
    try {
      res = await fetch(this.settings.verifyUrl, { method: 'POST', body: form, signal: AbortSignal.timeout(this.settings.timeoutMs ?? 5_000) });
    } catch {
      throw errors.unavailable();
    }
    if (!res.ok) throw errors.unavailable();
    const verdict = (await res.json().catch(() => ({}))) as { success?: unknown };
    return verdict.success === true;
  }
}
