// Started sign-ins with an identity provider, in Redis under their `state` (`oidc-flow:{<state>}`)
// for OIDC_FLOW_TTL_SECONDS, and taken back once (GETDEL): a replayed or forged callback finds
// nothing. The PKCE verifier and the nonce never leave the service.
import type { Redis } from '@acct/shared/redis';
import type { IdentityFlow, IdentityFlows, TakenFlow } from '../domain/ports';

const STATE = /^[A-Za-z0-9_-]{20,128}$/;

const TAKE = `
local raw = redis.call('GET', KEYS[1])
if not raw then return {'unknown'} end
local ok, flow = pcall(cjson.decode, raw)
if not ok or flow.binding ~= ARGV[1] then return {'other_browser', raw} end
redis.call('DEL', KEYS[1])
return {'taken', raw}
`;

type ScriptClient = Redis & { identityFlowTake(key: string, binding: string): Promise<[string, string?]> };

export class RedisIdentityFlows implements IdentityFlows {
  private readonly redis: ScriptClient;

  constructor(
    redis: Redis,
    private readonly ttlMs: number,
  ) {
    redis.defineCommand('identityFlowTake', { numberOfKeys: 1, lua: TAKE });
    this.redis = redis as ScriptClient;
  }

  async begin(state: string, flow: IdentityFlow): Promise<void> {
    await this.redis.set(flowKey(state), JSON.stringify(flow), 'PX', this.ttlMs);
  }

  async take(state: string, binding: string): Promise<TakenFlow> {
    if (!STATE.test(state)) return { outcome: 'unknown' };
    const [outcome, raw] = await this.redis.identityFlowTake(flowKey(state), binding);
    if (outcome === 'unknown' || raw === undefined) return { outcome: 'unknown' };
    return { outcome: outcome === 'taken' ? 'taken' : 'other_browser', flow: JSON.parse(raw) as IdentityFlow };
  }
}

const flowKey = (state: string) => `oidc-flow:{${state}}`;
