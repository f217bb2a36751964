// The languages of the pages and the mails: the shipped files complete and true to English's
// placeholders, a request's language chosen as browsers and people expect, a deployment's file
// added or refused with the reason.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Languages, SHIPPED_LANGUAGES_DIR, preferred, type TextTree } from '../src/languages';

const made: string[] = [];
function folderWith(files: Record<string, unknown>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-languages-'));
  made.push(dir);
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  return dir;
}
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function leaves(tree: TextTree, prefix = ''): [string, string][] {
  return Object.entries(tree).flatMap(([key, value]) => (typeof value === 'string' ? [[`${prefix}${key}`, value] as [string, string]] : leaves(value, `${prefix}${key}.`)));
}
const placeholders = (text: string) => [...new Set([...text.matchAll(/\{\{\s*([\w-]+)/g)].map((m) => m[1]))].sort();

describe('the shipped languages', () => {
  const languages = new Languages();

  it('are English and German, each named in itself, with nothing to say against them', () => {
    expect(languages.choices).toEqual([
      { code: 'en', name: 'English' },
      { code: 'de', name: 'Deutsch' },
    ]);
    expect(languages.problems()).toEqual([]);
  });

  it('German is complete: every English text has a German one with the same placeholders (plural forms by their own rules)', () => {
    expect(languages.missing('de')).toEqual([]);
    const english = JSON.parse(fs.readFileSync(path.join(SHIPPED_LANGUAGES_DIR, 'en.json'), 'utf8'));
    const german = JSON.parse(fs.readFileSync(path.join(SHIPPED_LANGUAGES_DIR, 'de.json'), 'utf8'));
    for (const part of ['pages', 'mail']) {
      const de = new Map(leaves(german[part]));
      const differing = leaves(english[part])
        .filter(([key, text]) => JSON.stringify(placeholders(text)) !== JSON.stringify(placeholders(de.get(key) ?? '')))
        .map(([key]) => `${part}.${key}`);
      expect(differing).toEqual([]);
      // And nothing German that English does not have (a misspelt key would never be shown).
      const en = new Set(leaves(english[part]).map(([key]) => key));
      expect([...de.keys()].filter((key) => !en.has(key))).toEqual([]);
    }
  });

  it('count by each language’s plural rules', () => {
    const de = languages.t('de', 'pages');
    const en = languages.t('en', 'pages');
    expect([en('account.othersEnded', { count: 1 }), en('account.othersEnded', { count: 3 })]).toEqual(['One other session ended.', '3 other sessions ended.']);
    expect([de('account.othersEnded', { count: 1 }), de('account.othersEnded', { count: 3 })]).toEqual(['Eine andere Sitzung wurde beendet.', '3 andere Sitzungen wurden beendet.']);
  });
});

describe("a request's language", () => {
  const languages = new Languages();

  it.each([
    ['de-DE,de;q=0.9,en;q=0.8', undefined, 'de'],
    ['de-AT', undefined, 'de'],
    ['fr-FR,fr;q=0.9,de;q=0.5', undefined, 'de'],
    ['fr-FR,fr;q=0.9', undefined, 'en'],
    ['en;q=0.5,de;q=0.9', undefined, 'de'],
    ['de;q=0,en', undefined, 'en'],
    ['*', undefined, 'en'],
    ['', undefined, 'en'],
    [undefined, undefined, 'en'],
    ['de', 'en', 'en'],
    ['en', 'de', 'de'],
    ['de', 'xx', 'de'],
    ['EN-gb', undefined, 'en'],
    ['<script>,de', undefined, 'de'],
  ])('Accept-Language %j with the switch at %j speaks %s', (header, chosen, expected) => {
    expect(languages.negotiate(header, chosen)).toBe(expected);
  });

  it('reads a long or odd header without trouble', () => {
    expect(preferred(`${'x-'.repeat(10_000)},de`)).toEqual([]);
    expect(preferred('de;q=abc, en;q=0.3')).toEqual(['en']);
  });
});

describe("a deployment's language files (LANGUAGES_DIR)", () => {
  it('add a language with one file, English under the texts it leaves out, and say which those are', () => {
    const dir = folderWith({ 'fr.json': { name: 'Français', pages: { signIn: { title: 'Connexion' } }, mail: { hello: 'Bonjour {{name}},' } } });
    const languages = new Languages(dir);
    expect(languages.codes).toEqual(['en', 'de', 'fr']);
    expect(languages.problems()).toEqual([]);
    const fr = languages.file('fr');
    expect([(fr.pages.signIn as TextTree).title, (fr.pages.signIn as TextTree).forgot]).toEqual(['Connexion', 'Forgot your password?']);
    expect(languages.missing('fr')).toContain('pages.signIn.forgot');
    expect(languages.missing('fr')).not.toContain('pages.signIn.title');
    expect(languages.negotiate('fr-CA,fr;q=0.9')).toBe('fr');
  });

  it('reword a shipped language, key by key', () => {
    const dir = folderWith({ 'en.json': { name: 'English', pages: { signIn: { title: 'Log in' } }, mail: {} } });
    const en = new Languages(dir).file('en');
    expect([(en.pages.signIn as TextTree).title, (en.pages.signIn as TextTree).forgot]).toEqual(['Log in', 'Forgot your password?']);
  });

  it('are refused with the reason: not JSON, not a language file, a bad name, an unknown key, a placeholder English does not give', () => {
    const dir = folderWith({
      'es.json': '{ "name": "Español", ',
      'it.json': { name: 'Italiano', pages: { signIn: { title: 42 } }, mail: {} },
      'french.json': { name: 'Français', pages: {}, mail: {} },
      'nl.json': { name: 'Nederlands', pages: { signIn: { titel: 'Inloggen', withProvider: 'Inloggen met {{provider}}' } }, mail: {} },
      'notes.txt': 'not a language',
    });
    const problems = new Languages(dir).problems();
    expect(problems).toEqual([
      expect.stringMatching(/es\.json: not JSON/),
      expect.stringMatching(/french\.json: the file name is no language tag/),
      expect.stringMatching(/it\.json: not a language file/),
      expect.stringMatching(/nl\.json: pages\.signIn\.titel is no text of en\.json/),
      expect.stringMatching(/nl\.json: pages\.signIn\.withProvider asks for \{\{provider\}\}, which en\.json's text is not given/),
    ]);
    expect(new Languages(path.join(dir, 'nowhere')).problems()).toEqual([expect.stringMatching(/does not exist/)]);
  });
});
