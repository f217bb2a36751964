// Started sign-ins with an identity provider, in Redis under their `state` (`oidc-flow:{<state>}`)
// for OIDC_FLOW_TTL_SECONDS, and taken back once (GETDEL): a replayed or forged callback finds
// nothing. The PKCE verifier and the nonce never leave the service.
import type { Redis } from '@acct/shared/redis';
import type { IdentityFlow, IdentityFlows } from '../domain/ports';

const STATE = /^[A-Za-z0-9_-]{20,128}$/;

export class RedisIdentityFlows implements IdentityFlows {
  constructor(
    private readonly redis: Redis,
    private readonly ttlMs: number,
  ) {}

  async begin(state: string, flow: IdentityFlow): Promise<void> {
    await this.redis.set(flowKey(state), JSON.stringify(flow), 'PX', this.ttlMs);
  }

  async take(state: string): Promise<IdentityFlow | undefined> {
    if (!STATE.test(state)) return undefined;
    const raw = await this.redis.getdel(flowKey(state));
    return raw ? (JSON.parse(raw) as IdentityFlow) : undefined;
  }
}

const flowKey = (state: string) => `oidc-flow:{${state}}`;
