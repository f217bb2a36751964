// What each mail is filled with, as an example: every value its event gives (productName too), so
// a preview shows the mail as a person gets it, a test mail can be sent, and an overriding template
// is checked at start against the values its mail really has.
import type { TemplateName } from './templates';

const link = (path: string) => `https://app.example.com${path}`;

export function mailSamples(productName: string, support = ''): Record<TemplateName, Record<string, string>> {
  const base = { productName, support, name: 'Grace' };
  return {
    'admin-otp': { ...base, code: '042917', minutes: '5' },
    'password-reset-requested': { ...base, resetUrl: link('/reset-password?token=example'), minutes: '30' },
    'password-reset-completed': base,
    'security-notice': { ...base, change: 'A passkey was added.\n- Added: passkey "Laptop", from 203.0.113.7' },
    'email-verification': { ...base, linkUrl: link('/account/email?action=verify&token=example'), hours: '24' },
    'factor-recovery-requested': { ...base, linkUrl: link('/account/email?action=recover&token=example'), minutes: '30' },
    'email-sign-in': { ...base, linkUrl: link('/login?email_sign_in=example'), code: '042917', minutes: '10' },
    'email-sign-up': { ...base, linkUrl: link('/login?email_sign_in=example'), code: '042917', minutes: '10' },
    'email-change-confirm': { ...base, linkUrl: link('/account/email?action=confirm&token=example'), hours: '24' },
    'email-change-notice': { ...base, newEmail: 'grace.new@example.com', linkUrl: link('/account/email?action=undo&token=example'), days: '7' },
    'account-deleted': base,
  };
}
