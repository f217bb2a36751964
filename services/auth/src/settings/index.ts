// Auth's features, each a section of the config named as here, in the order their refusals and
// warnings are listed. A new feature is its module in this folder and one row here: config.ts
// builds the schema, the sections and the use cases' policy from this table alone.
import { activitySettings } from './activity';
import { adminSettings } from './admins';
import { botCheckSettings } from './bot-check';
import { emailSignInSettings } from './email-sign-in';
import { identityProviderSettings } from './identity-providers';
import { mailedLinkSettings } from './mailed-links';
import { openIdProviderSettings } from './openid-provider';
import { otpSettings } from './otp';
import { passwordSettings } from './passwords';
import { rateLimitSettings } from './rate-limits';
import { secondFactorSettings } from './second-factors';
import { sessionSettings } from './sessions';

export const FEATURES = {
  admins: adminSettings,
  passwords: passwordSettings,
  otp: otpSettings,
  mfa: secondFactorSettings,
  sessions: sessionSettings,
  links: mailedLinkSettings,
  emailSignIn: emailSignInSettings,
  rateLimits: rateLimitSettings,
  identity: identityProviderSettings,
  activity: activitySettings,
  openid: openIdProviderSettings,
  botCheck: botCheckSettings,
};
