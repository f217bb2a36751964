// The hosted pages (apps/web, built to static files): read once at start into memory, compressed
// once, and answered from there on the API's own origin, so the refresh cookie stays first-party.
// HTML is revalidated on every visit (no-cache with an ETag); the hashed assets are immutable for a
// year. Every page gets a Content-Security-Policy stricter than the API's: scripts and styles from
// this site only (the build has no inline script), no framing at all.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { widgetPolicy, type WidgetKind } from '@acct/shared';
import { Languages } from '@acct/shared/languages';
import { requestLanguage } from './language';

/** The page paths and the built file each is served from; any other path is not a page. */
export const PAGE_PATHS: Readonly<Record<string, string>> = {
  '/login': 'signin.html',
  '/register': 'signin.html',
  '/forgot-password': 'signin.html',
  '/reset-password': 'signin.html',
  '/account/email': 'signin.html',
  '/admin/login': 'signin.html',
  '/admin/forgot-password': 'signin.html',
  '/admin/reset-password': 'signin.html',
  '/account': 'account.html',
  '/admin': 'admin.html',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

interface StaticFile {
  body: Buffer;
  /** Worth compressing (text of 512 bytes or more): its brotli and gzip forms are made at its first request for each, then kept. */
  compressible: boolean;
  encoded: Partial<Record<Encoding, Promise<Buffer | undefined>>>;
  headers: string[];
  etag: string;
}

/**
 * The pages' policy: scripts, styles and calls from this site only, no frame of them anywhere. A
 * bot-check widget (BOT_CHECK turnstile or hcaptcha) adds its vendor's origins where it documents
 * them: its script, its frame, and for hCaptcha its styles and calls.
 */
export function pagesPolicy(production: boolean, widget?: { kind: WidgetKind; scriptUrl?: string }): string {
  const extra = widget ? widgetPolicy(widget.kind, widget.scriptUrl) : { script: [], frame: [], style: [], connect: [] };
  const selfAnd = (sources: string[]) => ["'self'", ...sources].join(' ');
  return [
    "default-src 'none'",
    `script-src ${selfAnd(extra.script)}`,
    `style-src ${selfAnd(extra.style)}`,
    "img-src 'self' data: blob:",
    `connect-src ${selfAnd(extra.connect)}`,
    ...(extra.frame.length ? [`frame-src ${extra.frame.join(' ')}`] : []),
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    ...(production ? ['upgrade-insecure-requests'] : []),
  ].join('; ');
}

export class Pages {
  private readonly files = new Map<string, StaticFile>();
  /** Each page in each language, by route then language code. */
  private readonly pages = new Map<string, Map<string, StaticFile>>();
  private readonly languages: Languages;

  /**
   * Reads `dir` (a build of apps/web). Missing, there are no pages, and `missing` says why. The
   * return origins (the gateway's CORS_ORIGINS) go into each page's meta tag: where a sign-in may
   * go back to besides this site. Each page is made once per language (`languages`), with that
   * language's texts in it (English under any it lacks), and served in the request's.
   */
  constructor(
    readonly dir: string | undefined,
    options: { returnOrigins: string[]; securityHeaders: string[]; production: boolean; supportContact?: string; brand?: Brand; languages?: Languages; widget?: { kind: WidgetKind; scriptUrl?: string } },
  ) {
    const languages = options.languages ?? new Languages();
    this.languages = languages;
    if (!dir || !fs.existsSync(path.join(dir, 'signin.html'))) return;
    const security = withoutHeaders(options.securityHeaders, ['content-security-policy', 'x-frame-options']);
    const common = [...security, 'Content-Security-Policy', pagesPolicy(options.production, options.widget), 'X-Frame-Options', 'DENY', 'Vary', 'Accept-Encoding'];
    const origins = escapeAttribute(options.returnOrigins.join(' '));
    const brand = brandFiles(options.brand ?? {});
    const spoken = languages.codes.map((code) => ({ code, texts: pageTexts(languages, code) }));
    const html = new Map<string, Map<string, StaticFile>>();
    for (const name of fs.readdirSync(dir)) {
      if (!name.endsWith('.html')) continue;
      const text = branded(
        fs
          .readFileSync(path.join(dir, name), 'utf8')
          .replace('<meta name="acct:return-origins" content="" />', `<meta name="acct:return-origins" content="${origins}" />`)
          .replace('<meta name="acct:support" content="" />', `<meta name="acct:support" content="${escapeAttribute(options.supportContact ?? '')}" />`),
        options.brand ?? {},
        brand,
      );
      const inLanguages = new Map<string, StaticFile>();
      for (const { code, texts } of spoken) {
        const headers = [...withoutHeaders(common, ['vary']), 'Vary', 'Accept-Encoding, Accept-Language, Cookie', 'Content-Language', code];
        const noscript = String(languages.file(code).pages.noscript ?? '');
        inLanguages.set(code, prepared(Buffer.from(inLanguage(text, code, texts, noscript)), [...headers, 'Content-Type', TYPES['.html'], 'Cache-Control', 'no-cache', 'Referrer-Policy', 'no-referrer']));
      }
      html.set(name, inLanguages);
    }
    for (const [name, body] of brand.files) this.files.set(`/brand/${name}`, prepared(body, [...common, 'Content-Type', TYPES[path.extname(name)], 'Cache-Control', 'no-cache']));
    for (const [route, name] of Object.entries(PAGE_PATHS)) {
      const inLanguages = html.get(name);
      if (inLanguages) this.pages.set(route, inLanguages);
    }
    const assets = path.join(dir, 'assets');
    if (fs.existsSync(assets)) {
      for (const name of fs.readdirSync(assets)) {
        const type = TYPES[path.extname(name)];
        if (!type) continue;
        this.files.set(`/assets/${name}`, prepared(fs.readFileSync(path.join(assets, name)), [...common, 'Content-Type', type, 'Cache-Control', 'public, max-age=31536000, immutable']));
      }
    }
  }

  /** Whether any page was found (a gateway without a build serves the API alone). */
  get enabled(): boolean {
    return this.pages.size > 0;
  }

  /** Answers a GET or HEAD of a page or asset; false when the path is neither. */
  serve(req: http.IncomingMessage, res: http.ServerResponse, pathname: string, requestId: string): boolean {
    const method = req.method;
    if (method !== 'GET' && method !== 'HEAD') return false;
    const route = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
    const page = this.pages.get(route);
    const file = page ? page.get(requestLanguage(this.languages, req)) : this.files.get(route);
    if (!file) return false;
    req.resume();
    if (req.headers['if-none-match'] === file.etag) {
      res.writeHead(304, [...file.headers, 'ETag', file.etag, 'X-Request-Id', requestId]);
      res.end();
      return true;
    }
    const accepts = String(req.headers['accept-encoding'] ?? '');
    const wanted: Encoding | undefined = !file.compressible ? undefined : /\bbr\b/.test(accepts) ? 'br' : /\bgzip\b/.test(accepts) ? 'gzip' : undefined;
    const send = (body: Buffer, encoding: Encoding | undefined) => {
      if (res.destroyed) return;
      res.writeHead(200, [...file.headers, 'ETag', file.etag, 'Content-Length', String(body.length), ...(encoding ? ['Content-Encoding', encoding] : []), 'X-Request-Id', requestId]);
      res.end(method === 'HEAD' ? undefined : body);
    };
    if (!wanted) send(file.body, undefined);
    else void compressed(file, wanted).then((body) => (body ? send(body, wanted) : send(file.body, undefined)));
    return true;
  }
}

/** A deployment's look: the product's name, the accent colour, a folder with a logo and extra styles (gateway config, BRAND_*). */
export interface Brand {
  productName?: string;
  color?: string;
  dir?: string;
}

/** What the brand adds to the pages: `/brand/theme.css` (the colour, then the folder's brand.css) and the logo, each served from memory. */
function brandFiles(brand: Brand): { files: Map<string, Buffer>; logo?: string } {
  const files = new Map<string, Buffer>();
  const css: string[] = [];
  // The light scheme's accent (the dark scheme keeps its own, made to read on a dark background).
  if (brand.color) css.push(`@media not (prefers-color-scheme: dark) { :root { --accent: ${brand.color}; } }\n`);
  const own = brand.dir ? path.join(brand.dir, 'brand.css') : undefined;
  if (own && fs.existsSync(own)) css.push(fs.readFileSync(own, 'utf8'));
  if (css.length) files.set('theme.css', Buffer.from(css.join('\n')));
  const logo = brand.dir ? ['logo.svg', 'logo.png'].find((name) => fs.existsSync(path.join(brand.dir as string, name))) : undefined;
  if (logo) files.set(logo, fs.readFileSync(path.join(brand.dir as string, logo)));
  return { files, ...(logo ? { logo } : {}) };
}

/** A page with the brand in it: the product's name in its header and root, the logo before it, the theme after the pages' own styles. */
function branded(html: string, brand: Brand, files: { files: Map<string, Buffer>; logo?: string }): string {
  const name = brand.productName ? escapeAttribute(brand.productName) : undefined;
  let text = html;
  if (name) text = text.replace('data-product="Account"', `data-product="${name}"`).replace('<span class="brand">Account</span>', `<span class="brand">${name}</span>`);
  if (files.logo) text = text.replace('<span class="brand">', `<img class="logo" src="/brand/${files.logo}" alt="" /><span class="brand">`);
  if (files.files.has('theme.css')) text = text.replace('</head>', '  <link rel="stylesheet" href="/brand/theme.css" />\n  </head>');
  return text;
}

/** What a page in `code` carries of its language: the texts the pages read, the languages its switch offers. */
function pageTexts(languages: Languages, code: string): string {
  // Inside <script>, "</script" or "<!--" would end or bend the element: '<' is written as \u003c, which JSON reads back alike.
  return JSON.stringify({ lng: code, languages: languages.choices, pages: languages.file(code).pages }).replace(/</g, '\\u003c');
}

/** A page in a language: `<html lang>` says it, and its texts go in as a JSON data block (never run, so the strict CSP stands). */
function inLanguage(html: string, code: string, texts: string, noscript: string): string {
  const tagged = html.replace(/<html lang="[^"]*"/, `<html lang="${escapeAttribute(code)}"`).replace(/<noscript>[^<]*<\/noscript>/, `<noscript>${escapeAttribute(noscript)}</noscript>`);
  return tagged.replace('</head>', `  <script type="application/json" id="acct-texts">${texts}</script>\n  </head>`);
}

function prepared(body: Buffer, headers: string[]): StaticFile {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  const compressible = body.length >= 512 && /^(text\/|application\/json|image\/svg)/.test(headers[headers.indexOf('Content-Type') + 1]);
  return { body, compressible, encoded: {}, headers, etag };
}

type Encoding = 'br' | 'gzip';

/**
 * The file in `encoding`, made once, at the first request that takes it, on libuv's thread pool (never
 * on the event loop), and shared by the requests that wait for it; undefined if compressing failed
 * (the file then goes as it is). Every page in every language and every asset, both ways at
 * brotli's highest quality, used to be made at start: 410 ms of CPU at each gateway start (`node`
 * constructing Pages over the build five times: 2.05 s, now 61 ms), for files most starts never
 * serve. The largest asset (93 KB of script) takes 127 ms of brotli, once.
 */
function compressed(file: StaticFile, encoding: Encoding): Promise<Buffer | undefined> {
  return (file.encoded[encoding] ??= new Promise((resolve) => {
    const done = (error: Error | null, out: Buffer) => resolve(error ? undefined : out);
    if (encoding === 'br') zlib.brotliCompress(file.body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }, done);
    else zlib.gzip(file.body, { level: 9 }, done);
  }));
}

function withoutHeaders(flat: string[], names: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < flat.length; i += 2) if (!names.includes(flat[i].toLowerCase())) out.push(flat[i], flat[i + 1]);
  return out;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Where a build of apps/web is found by default: beside the gateway in this repository and in the image. */
export function defaultPagesDir(): string {
  return path.resolve(__dirname, '../../../apps/web/dist');
}
