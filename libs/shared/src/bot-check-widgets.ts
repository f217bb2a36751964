// The third-party widgets a deployment may put in front of sign-up and sign-in (BOT_CHECK turnstile
// or hcaptcha): the script the hosted pages load, and the origins their Content-Security-Policy must
// then allow (as each vendor documents them). Auth tells the pages the script; the gateway widens the
// pages' policy by the same origins, and by nothing when the check is off or self-hosted (ALTCHA).

export type WidgetKind = 'turnstile' | 'hcaptcha';

export const BOT_CHECK_WIDGETS: Record<WidgetKind, { script: string; origins: string[]; styles: boolean }> = {
  // https://developers.cloudflare.com/turnstile/reference/content-security-policy/
  turnstile: { script: 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit', origins: ['https://challenges.cloudflare.com'], styles: false },
  // https://docs.hcaptcha.com/#content-security-policy-settings
  hcaptcha: { script: 'https://js.hcaptcha.com/1/api.js?render=explicit&recaptchacompat=off', origins: ['https://hcaptcha.com', 'https://*.hcaptcha.com'], styles: true },
};

export function isWidgetKind(kind: string | undefined): kind is WidgetKind {
  return kind === 'turnstile' || kind === 'hcaptcha';
}

/** The script a page loads for the widget: the deployment's (BOT_CHECK_SCRIPT_URL, a mirror or a test double), else the vendor's. */
export function widgetScript(kind: WidgetKind, scriptUrl?: string): string {
  return scriptUrl ?? BOT_CHECK_WIDGETS[kind].script;
}

/**
 * What the pages' policy adds for the widget, by directive: its script and its frames from the
 * vendor's origins (the script's own origin when the deployment serves it), and hCaptcha's styles
 * and calls too.
 */
export function widgetPolicy(kind: WidgetKind, scriptUrl?: string): { script: string[]; frame: string[]; style: string[]; connect: string[] } {
  const origins = scriptUrl ? [new URL(scriptUrl).origin] : BOT_CHECK_WIDGETS[kind].origins;
  const styles = !scriptUrl && BOT_CHECK_WIDGETS[kind].styles;
  return { script: origins, frame: origins, style: styles ? origins : [], connect: styles ? origins : [] };
}
