// Admins: whether anyone may register one, and whether new admins get a second step by default.
import { z } from 'zod';
import { env } from '@acct/shared';
import { feature } from './feature';

export const adminSettings = feature({
  variables: {
    /** Whether new admins get a second factor: `auto` means on in production, off elsewhere. */
    ADMIN_2FA_DEFAULT: z.enum(['auto', 'true', 'false']).default('auto'),
    ADMIN_REGISTRATION_OPEN: env.bool(false),
  },
  section: (v) => ({
    registrationOpen: v.ADMIN_REGISTRATION_OPEN,
    twoFactor: v.ADMIN_2FA_DEFAULT === 'auto' ? v.NODE_ENV === 'production' : v.ADMIN_2FA_DEFAULT === 'true',
  }),
  weakened: (s) => [
    ...(s.registrationOpen ? ['ADMIN_REGISTRATION_OPEN=true: anyone can register an admin'] : []),
    ...(!s.twoFactor ? ['ADMIN_2FA_DEFAULT=false: new admins sign in without a second factor'] : []),
  ],
  policy: (s) => ({ adminRegistrationOpen: s.registrationOpen, adminTwoFactor: s.twoFactor }),
});
