// The activity history: how long it is kept and how much of it one account keeps.
import { env } from '@acct/shared';
import { feature } from './feature';

export const activitySettings = feature({
  variables: {
    /** How long the activity history (sign-ins, security changes, admin acts) is kept. */
    ACTIVITY_RETENTION_DAYS: env.int(180, 1),
    /** The most activity entries one account keeps (the oldest go first). */
    ACTIVITY_MAX_PER_ACCOUNT: env.int(1_000, 10),
  },
  section: (v) => ({ retentionDays: v.ACTIVITY_RETENTION_DAYS, maxPerAccount: v.ACTIVITY_MAX_PER_ACCOUNT }),
});
