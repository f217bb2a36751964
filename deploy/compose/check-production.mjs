// The production compose's first step (docker-compose.production.yml, service `config-check`):
// names every variable .env is missing, all in one run, before any service starts. Compose's own
// `${VAR:?}` stops at the first missing one, so an operator would learn them one start at a time.
// Each service then applies its own production rules to the values (docs/operations.md).
const required = [
  ['OTP_SECRET', 'auth', '32 random bytes or more, e.g. openssl rand -hex 32'],
  ['MFA_ENCRYPTION_KEY', 'auth', '32 random bytes as hex, e.g. openssl rand -hex 32'],
  ['RESET_URL_BASE_ADMIN', 'auth', 'the public https page that takes an admin reset link'],
  ['RESET_URL_BASE_USER', 'auth', 'the public https page that takes a user reset link'],
  ['EMAIL_LINK_URL_BASE', 'auth', 'the public https page that takes email verification and change links'],
  ['SMTP_URL', 'notifier', 'your mail server, e.g. smtps://user:password@smtp.example.com:465'],
];

const missing = required.filter(([name]) => !process.env[name]);
if (missing.length > 0) {
  console.error(`Production start refused: ${missing.length} of the variables it needs are not set in .env:`);
  for (const [name, service, what] of missing) console.error(`  ${name} (${service}): ${what}`);
  console.error('Set them in .env beside docker-compose.yml, then run the same command again.');
  process.exit(1);
}
console.log('config-check: every required production variable is set');
