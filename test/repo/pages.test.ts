// The hosted pages as built (apps/web): every error code the API can answer has a text of its own,
// and each page's JavaScript stays within its budget (compressed as the gateway sends it), the
// figures in bench/RESULTS.md (Pages).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import yaml from 'js-yaml';
import { buildPages, repositoryRoot } from '@acct/test-harness/build';
import { identityRedirectErrors } from '@acct/auth';
import { Languages } from '@acct/shared/languages';
import { errorText, textsIn, translator } from '../../apps/web/src/texts';

/** Bytes of JavaScript each page may load, gzip-compressed. */
const BUDGET_GZIP_BYTES: Record<string, number> = { 'signin.html': 60 * 1024, 'account.html': 80 * 1024, 'admin.html': 80 * 1024 };

const languages = new Languages();
/** The pages' texts in a language, as the gateway gives them to a page. */
const textsOf = (code: string) => textsIn(translator(code, languages.file(code).pages));
const texts = textsOf('en');
const waitInWords = texts.waitInWords;

describe('the hosted pages', () => {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-pages-budget-'));
  beforeAll(() => buildPages(outDir), 60_000);
  afterAll(() => fs.rmSync(outDir, { recursive: true, force: true }));

  it('says a wait as a person would: seconds, then about so many minutes, then hours', () => {
    expect([1, 45, 89, 90, 900, 899.2, 5_340, 5_400, 7_200, 86_400].map(waitInWords)).toEqual([
      '1 second',
      '45 seconds',
      '89 seconds',
      'about 2 minutes',
      'about 15 minutes',
      'about 15 minutes',
      'about 89 minutes',
      'about 2 hours',
      'about 2 hours',
      'about 24 hours',
    ]);
    expect(errorText({ code: 'rate_limited', message: '', retryAfter: 900 }, texts)).toBe(`${texts.errors.rate_limited} Try again in about 15 minutes.`);
    const german = textsOf('de');
    expect([1, 45, 900, 5_400, 7_200].map(german.waitInWords)).toEqual(['1 Sekunde', '45 Sekunden', 'etwa 15 Minuten', 'etwa 2 Stunden', 'etwa 2 Stunden']);
    expect(errorText({ code: 'rate_limited', message: '', retryAfter: 900 }, german)).toBe('Zu viele Versuche. Warten Sie einen Moment und versuchen Sie es dann erneut. Versuchen Sie es in etwa 15 Minuten erneut.');
  });

  it('asks every language for texts it has: each key texts.ts names is in every shipped language file', () => {
    const source = fs.readFileSync(path.join(repositoryRoot, 'apps/web/src/texts.ts'), 'utf8');
    const keys = [...new Set([...source.matchAll(/\bt\('([\w.]+)'/g)].map((m) => m[1]))];
    expect(keys.length).toBeGreaterThan(350);
    for (const code of languages.codes) {
      const t = languages.t(code, 'pages');
      // A key is there when i18next finds it, as itself or in its plural forms.
      const absent = keys.filter((key) => (t(key, { count: 2, returnObjects: true } as never) as unknown) === key);
      expect([code, absent]).toEqual([code, []]);
    }
  });

  it("has a text for every error code of the API (and for the browser's own two failures)", () => {
    const doc = yaml.load(fs.readFileSync(path.join(repositoryRoot, 'openapi/openapi.yaml'), 'utf8')) as any;
    const codes: string[] = doc.components.schemas.ErrorCode.enum;
    expect(codes.length).toBeGreaterThan(30);
    // The codes a provider's callback sends back in `?error=` (their closed list).
    const redirected = Object.keys(identityRedirectErrors);
    expect(redirected).toContain('identity_account_exists');
    // Besides the API's: the service out of reach, and a passkey prompt the person dismissed.
    expect(Object.keys(texts.errors).sort()).toEqual([...new Set([...codes, ...redirected, 'network', 'passkey_cancelled'])].sort());
  });

  it.each(Object.entries(BUDGET_GZIP_BYTES))('%s loads no more JavaScript than its budget', (page, budget) => {
    const html = fs.readFileSync(path.join(outDir, page), 'utf8');
    const scripts = [...html.matchAll(/<(?:script[^>]*\bsrc|link[^>]*rel="modulepreload"[^>]*\bhref)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]);
    expect(scripts.length).toBeGreaterThan(0);
    const bytes = scripts.reduce((sum, src) => sum + zlib.gzipSync(fs.readFileSync(path.join(outDir, src))).length, 0);
    expect(bytes).toBeGreaterThan(1_000);
    expect(bytes).toBeLessThanOrEqual(budget);
  });
});
