// The second step with an authenticator code: each request uses up one prepared challenge (and its
// account's time step), so the run is a set number of them, not a time.
import { Secret, TOTP } from 'otpauth';
import { measure } from '../lib/load.mjs';
import { CONNECTIONS, OTP_ACCOUNTS } from '../lib/context.mjs';
import { authenticatorChallenges, stackCpu } from '../lib/stack.mjs';

export async function verifyOtpScenario(stack) {
  const prepared = await authenticatorChallenges(stack.gatewayUrl, OTP_ACCOUNTS);
  let i = 0;
  return measure(
    {
      url: stack.gatewayUrl,
      connections: Math.min(CONNECTIONS, prepared.length),
      amount: prepared.length,
      requests: [
        {
          method: 'POST',
          path: '/api/auth/verify-otp',
          headers: { 'content-type': 'application/json' },
          setupRequest: (req) => {
            const { secret, challengeToken } = prepared[i++ % prepared.length];
            // The next step's code: newer than the one the enrolment used, within the skew allowed.
            const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + 30_000 });
            return { ...req, body: JSON.stringify({ challenge_token: challengeToken, code }) };
          },
        },
      ],
    },
    { expectStatus: 200, cpu: stackCpu(stack) },
  );
}
