// The languages the pages and the mails speak: one JSON file per language (`<code>.json`: its own
// name, the pages' texts, the mails' texts), those shipped in libs/shared/locales and those of a
// deployment's folder (LANGUAGES_DIR), which add a language or reword a shipped one. English is
// complete and every other language falls back to it key by key, so a deployment's file may start
// small; `problems` says what such a file gets wrong, `missing` what it leaves to English.
// Texts are i18next's (interpolation `{{name}}`, plurals `key_one`/`key_other` by Intl.PluralRules).
import fs from 'node:fs';
import path from 'node:path';
import i18next, { type i18n, type TFunction } from 'i18next';
import { configError } from '../config';
import { isLanguageTag } from '../language-tag';

export { isLanguageTag };

export const DEFAULT_LANGUAGE = 'en';
/** The cookie a page's language switch sets (and the gateway reads before Accept-Language). */
export const LANGUAGE_COOKIE = 'acct_lang';

export interface LanguageFile {
  /** The language's own name for itself, as the switch lists it ("Deutsch"). */
  name: string;
  pages: TextTree;
  mail: TextTree;
}
export interface TextTree {
  [key: string]: string | TextTree;
}

/** Where the shipped language files are, in this repository and in the images (libs/shared is copied whole). */
export const SHIPPED_LANGUAGES_DIR = path.resolve(__dirname, '..', '..', 'locales');

export class Languages {
  private readonly files = new Map<string, LanguageFile>();
  private readonly found: string[] = [];
  private instance?: i18n;
  /** The languages offered, English first, then by code: fixed once the files are read. */
  readonly codes: string[];

  /** Reads the shipped files, then the deployment's folder (a file there replaces the shipped one of its language, merged over it). */
  constructor(extraDir?: string, shippedDir = SHIPPED_LANGUAGES_DIR) {
    this.read(shippedDir, true);
    if (extraDir) {
      if (!fs.existsSync(extraDir)) this.found.push(`LANGUAGES_DIR ${extraDir} does not exist`);
      else this.read(extraDir, false);
    }
    if (!this.files.has(DEFAULT_LANGUAGE)) throw new Error(`no ${DEFAULT_LANGUAGE}.json in ${shippedDir}: the pages and mails have no texts`);
    this.codes = [DEFAULT_LANGUAGE, ...[...this.files.keys()].filter((code) => code !== DEFAULT_LANGUAGE).sort()];
  }

  /** Each language's code and its own name, for a switch. */
  get choices(): { code: string; name: string }[] {
    return this.codes.map((code) => ({ code, name: this.file(code).name }));
  }

  /** What a language file gets wrong: not JSON, not the shape, a text that drops or invents a placeholder. */
  problems(): string[] {
    const english = this.file(DEFAULT_LANGUAGE);
    const found = [...this.found];
    for (const code of this.codes) {
      if (code === DEFAULT_LANGUAGE) continue;
      const file = this.files.get(code)!;
      for (const part of ['pages', 'mail'] as const) {
        for (const [key, text] of leaves(file[part])) {
          const base = englishOf(english[part], key);
          if (base === undefined) {
            found.push(`${code}.json: ${part}.${key} is no text of ${DEFAULT_LANGUAGE}.json (a misspelt key is never shown)`);
            continue;
          }
          const want = placeholders(base);
          const have = placeholders(text);
          const unknown = [...have].filter((name) => !want.has(name) && name !== 'count');
          if (unknown.length) found.push(`${code}.json: ${part}.${key} asks for ${unknown.map((n) => `{{${n}}}`).join(', ')}, which ${DEFAULT_LANGUAGE}.json's text is not given`);
        }
      }
    }
    return found;
  }

  /** The English keys a language leaves untranslated (shown in English). */
  missing(code: string): string[] {
    const file = this.files.get(code) ?? { name: code, pages: {}, mail: {} };
    const english = this.file(DEFAULT_LANGUAGE);
    const out: string[] = [];
    for (const part of ['pages', 'mail'] as const) {
      const own = new Set(leaves(file[part]).map(([key]) => key.replace(/_(zero|one|two|few|many|other)$/, '')));
      for (const [key] of leaves(english[part])) if (!own.has(key.replace(/_(zero|one|two|few|many|other)$/, ''))) out.push(`${part}.${key}`);
    }
    return out;
  }

  /** A language's file with English under it: every key there, in the language where it has one. */
  file(code: string): LanguageFile {
    const own = this.files.get(code) ?? this.files.get(DEFAULT_LANGUAGE)!;
    if (code === DEFAULT_LANGUAGE) return own;
    const english = this.files.get(DEFAULT_LANGUAGE)!;
    return { name: own.name, pages: merged(english.pages, own.pages), mail: merged(english.mail, own.mail) };
  }

  /**
   * The language to speak to a request: the one the person chose (the switch's cookie, or their
   * account's), else the best of Accept-Language that is offered (`de-AT` takes `de`), else English.
   */
  negotiate(acceptLanguage: string | undefined, chosen?: string): string {
    if (chosen && this.files.has(chosen)) return chosen;
    for (const tag of preferred(acceptLanguage)) {
      const exact = this.codes.find((code) => code.toLowerCase() === tag);
      if (exact) return exact;
      const primary = tag.split('-')[0];
      const close = this.codes.find((code) => code.toLowerCase() === primary || code.toLowerCase().split('-')[0] === primary);
      if (close) return close;
    }
    return DEFAULT_LANGUAGE;
  }

  /** The texts of one namespace (`mail`) in a language, English where it has none; unescaped (HTML escapes the whole text where it goes into HTML). */
  t(code: string, namespace: 'pages' | 'mail'): TFunction {
    return this.i18n().getFixedT(this.files.has(code) ? code : DEFAULT_LANGUAGE, namespace);
  }

  private i18n(): i18n {
    if (this.instance) return this.instance;
    const instance = i18next.createInstance();
    void instance.init({
      initAsync: false,
      lng: DEFAULT_LANGUAGE,
      fallbackLng: DEFAULT_LANGUAGE,
      ns: ['pages', 'mail'],
      resources: Object.fromEntries([...this.files].map(([code, file]) => [code, { pages: file.pages, mail: file.mail }])),
      interpolation: { escapeValue: false },
      // Keys are paths (`signIn.title`) and may hold ':' in their texts, never as a namespace.
      nsSeparator: false,
      showSupportNotice: false,
    } as Parameters<i18n['init']>[0]);
    instance.services.formatter?.add('lowerFirst', (value: unknown) => {
      const text = String(value);
      return text.charAt(0).toLowerCase() + text.slice(1);
    });
    this.instance = instance;
    return instance;
  }

  private read(dir: string, shipped: boolean): void {
    if (shipped && !fs.existsSync(dir)) throw new Error(`the language files are missing: ${dir} (an image copies libs/shared whole, locales included)`);
    for (const name of fs.readdirSync(dir).sort()) {
      if (!name.endsWith('.json')) continue;
      const code = name.slice(0, -'.json'.length);
      const where = shipped ? name : path.join(dir, name);
      if (!isLanguageTag(code)) {
        this.found.push(`${where}: the file name is no language tag (such as de.json or pt-BR.json)`);
        continue;
      }
      let data: unknown;
      try {
        data = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
      } catch (err) {
        this.found.push(`${where}: not JSON (${(err as Error).message})`);
        continue;
      }
      const file = data as Partial<LanguageFile>;
      if (typeof data !== 'object' || data === null || typeof file.name !== 'string' || !isTree(file.pages ?? {}) || !isTree(file.mail ?? {})) {
        this.found.push(`${where}: not a language file ({ "name": "…", "pages": { … }, "mail": { … } }, every text a string)`);
        continue;
      }
      const before = this.files.get(code);
      this.files.set(code, {
        name: file.name,
        pages: before ? merged(before.pages, file.pages ?? {}) : (file.pages ?? {}),
        mail: before ? merged(before.mail, file.mail ?? {}) : (file.mail ?? {}),
      });
    }
  }
}

/**
 * The languages a service starts with: the shipped ones and the deployment's folder (LANGUAGES_DIR).
 * A file that cannot be used stops the start, naming each problem, as any bad setting does.
 */
export function loadLanguages(dir: string | undefined): Languages {
  const languages = new Languages(dir);
  const problems = languages.problems();
  if (problems.length) throw configError('LANGUAGES_DIR', problems.join('; '));
  return languages;
}

/** The tags of an Accept-Language header, best first (q=0 dropped), lower case. */
export function preferred(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .slice(0, 500)
    .split(',')
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const weight = q ? Number(q.slice(2)) : 1;
      return { tag: tag.trim().toLowerCase(), weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((entry) => entry.weight > 0 && /^[a-z]{1,8}(?:-[a-z0-9]{1,8})*$/.test(entry.tag))
    .sort((a, b) => b.weight - a.weight || a.index - b.index)
    .map((entry) => entry.tag);
}

function isTree(value: unknown): value is TextTree {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.values(value).every((v) => typeof v === 'string' || isTree(v));
}

function merged(base: TextTree, over: TextTree): TextTree {
  const out: TextTree = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const under = out[key];
    out[key] = typeof value === 'object' && typeof under === 'object' ? merged(under, value) : value;
  }
  return out;
}

function leaves(tree: TextTree, prefix = ''): [string, string][] {
  return Object.entries(tree).flatMap(([key, value]) => (typeof value === 'string' ? [[`${prefix}${key}`, value] as [string, string]] : leaves(value, `${prefix}${key}.`)));
}

/** The English text of a key, a plural form taking its base's: `x_few` is checked against `x_other`. */
function englishOf(tree: TextTree, key: string): string | undefined {
  const direct = lookup(tree, key);
  if (direct !== undefined) return direct;
  const plural = key.match(/^(.*)_(zero|one|two|few|many|other)$/);
  return plural ? (lookup(tree, `${plural[1]}_other`) ?? lookup(tree, plural[1])) : undefined;
}

function lookup(tree: TextTree, key: string): string | undefined {
  let node: string | TextTree | undefined = tree;
  for (const part of key.split('.')) {
    if (typeof node !== 'object') return undefined;
    node = node[part];
  }
  return typeof node === 'string' ? node : undefined;
}

function placeholders(text: string): Set<string> {
  return new Set([...text.matchAll(/\{\{\s*([\w-]+)/g)].map((m) => m[1]));
}
