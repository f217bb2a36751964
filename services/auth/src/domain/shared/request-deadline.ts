// A request whose answer is no longer awaited commits nothing: once the gateway has answered 504
// (its deadline passed) or the client went away, a login opens no session and sends no push, a
// registration makes no account, a reset changes no password. Checked right before each commit,
// after the slow part (a bcrypt hash or compare waiting for its slot).
import { errors } from '@acct/shared';
import type { RequestContext } from './ports';

export function assertStillAwaited(ctx: Pick<RequestContext, 'signal'>): void {
  if (ctx.signal?.aborted) throw errors.upstreamTimeout();
}
