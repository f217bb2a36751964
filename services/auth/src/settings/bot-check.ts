// A bot check where abuse starts (the rows of the route table marked `botCheck`: a sign-up, a
// password tried, a mail sent to an address the caller names): off unless turned on. `altcha` is a
// self-hosted proof of work (ALTCHA, altcha-lib): the client solves a signed challenge, no third
// party is involved; `turnstile` and `hcaptcha` check the token of their widget with their siteverify.
import { z } from 'zod';
import { env, widgetScript, type WidgetKind } from '@acct/shared';
import { feature } from './feature';

export const BOT_CHECK_KINDS = ['off', 'altcha', 'turnstile', 'hcaptcha'] as const;
export type BotCheckKind = (typeof BOT_CHECK_KINDS)[number];

/** Where each widget's token is verified (their documented siteverify). */
const VERIFY_URLS = { turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify', hcaptcha: 'https://api.hcaptcha.com/siteverify' } as const;

export const botCheckSettings = feature({
  variables: {
    /** The bot check on sign-up, sign-in with a password, forgot-password and sign-in by email: off, altcha (self-hosted proof of work), turnstile or hcaptcha. */
    BOT_CHECK: z.enum(BOT_CHECK_KINDS).default('off'),
    /** ALTCHA: the work a challenge asks, as the most PBKDF2 rounds (of BOT_CHECK_ALTCHA_COST iterations) a browser may need; half that on average. */
    BOT_CHECK_ALTCHA_WORK: env.int(3_000, 10).pipe(z.number().max(1_000_000)),
    /** ALTCHA: PBKDF2-SHA-256 iterations per round. */
    BOT_CHECK_ALTCHA_COST: env.int(1_000, 1).pipe(z.number().max(100_000)),
    /** ALTCHA: how long a challenge may be solved and used, in seconds. */
    BOT_CHECK_ALTCHA_TTL_SECONDS: env.int(600, 30).pipe(z.number().max(3600)),
    /** ALTCHA: signs the challenges (at least 32 characters); several replicas share it. Unset: a key derived from OTP_SECRET. */
    ...env.secret('BOT_CHECK_ALTCHA_KEY'),
    /** Turnstile or hCaptcha: the site key the pages' widget shows. */
    BOT_CHECK_SITE_KEY: z.string().min(1).max(200).optional(),
    /** Turnstile or hCaptcha: the secret key their siteverify takes. */
    ...env.secret('BOT_CHECK_SECRET_KEY'),
    /** Turnstile or hCaptcha: their siteverify, when another address answers it (a proxy, a test double). */
    BOT_CHECK_VERIFY_URL: z.string().url().optional(),
    /** Turnstile or hCaptcha: the widget's script the hosted pages load, when another address serves it (a mirror, a test double); the gateway reads it too, for the pages' policy. */
    BOT_CHECK_SCRIPT_URL: z.string().url().optional(),
  },
  section: (v, ctx) => {
    const widget = v.BOT_CHECK === 'turnstile' || v.BOT_CHECK === 'hcaptcha';
    if (widget && (!v.BOT_CHECK_SITE_KEY || !v.BOT_CHECK_SECRET_KEY)) ctx.addIssue({ code: 'custom', path: ['BOT_CHECK'], message: `${v.BOT_CHECK} needs BOT_CHECK_SITE_KEY and BOT_CHECK_SECRET_KEY` });
    if (v.BOT_CHECK_ALTCHA_KEY !== undefined && v.BOT_CHECK_ALTCHA_KEY.length < 32) ctx.addIssue({ code: 'custom', path: ['BOT_CHECK_ALTCHA_KEY'], message: 'at least 32 characters' });
    return {
      kind: v.BOT_CHECK as BotCheckKind,
      altcha: { work: v.BOT_CHECK_ALTCHA_WORK, cost: v.BOT_CHECK_ALTCHA_COST, ttlSeconds: v.BOT_CHECK_ALTCHA_TTL_SECONDS, key: v.BOT_CHECK_ALTCHA_KEY },
      widget: widget
        ? {
            siteKey: v.BOT_CHECK_SITE_KEY!,
            secretKey: v.BOT_CHECK_SECRET_KEY!,
            verifyUrl: v.BOT_CHECK_VERIFY_URL ?? VERIFY_URLS[v.BOT_CHECK as WidgetKind],
            script: widgetScript(v.BOT_CHECK as WidgetKind, v.BOT_CHECK_SCRIPT_URL),
          }
        : undefined,
    };
  },
  production: (given) => [
    ...(given.BOT_CHECK_VERIFY_URL && !/^https:\/\//i.test(given.BOT_CHECK_VERIFY_URL) ? [['BOT_CHECK_VERIFY_URL', 'must be https in production (it carries the secret key)'] as [string, string]] : []),
    ...(given.BOT_CHECK_SCRIPT_URL && !/^https:\/\//i.test(given.BOT_CHECK_SCRIPT_URL) ? [['BOT_CHECK_SCRIPT_URL', 'must be https in production (the pages run it)'] as [string, string]] : []),
  ],
});
