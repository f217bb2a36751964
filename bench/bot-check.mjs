// What the ALTCHA bot check (BOT_CHECK=altcha) costs: a browser's solve in Chromium (Web Crypto,
// as the hosted pages do it), and the server's making and checking of a challenge, at the settings
// given (BOT_CHECK_ALTCHA_WORK, BOT_CHECK_ALTCHA_COST; the defaults otherwise).
//   node bench/bot-check.mjs [challenges=20]
// Needs Chromium (CHROMIUM_PATH, or Debian's /usr/bin/chromium).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';
import puppeteer from 'puppeteer-core';

const require = createRequire(import.meta.url);
const { createChallenge, randomInt, verifySolution } = require('altcha-lib');
const { deriveKey } = require('altcha-lib/algorithms/pbkdf2');

const count = Number(process.argv[2] ?? 20);
const work = Number(process.env.BOT_CHECK_ALTCHA_WORK ?? 3_000);
const cost = Number(process.env.BOT_CHECK_ALTCHA_COST ?? 1_000);
const chromium = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && fs.existsSync(p));
if (!chromium) {
  console.error('no Chromium: apt-get install chromium, or set CHROMIUM_PATH');
  process.exit(1);
}
const keys = { hmacSignatureSecret: 'bench signature key', hmacKeySignatureSecret: 'bench key signature key' };

// altcha-lib's own ES modules, served to a page on a loopback origin (a secure context: Web Crypto works).
const esm = path.join(path.resolve(path.dirname(require.resolve('altcha-lib')), '../../..'), 'dist/esm/v2');
const page = `<!DOCTYPE html><script type="module">
import { solveChallenge } from '/altcha/index.js';
import { deriveKey } from '/altcha/algorithms/web/pbkdf2.js';
window.solve = async (challenge) => { const t = performance.now(); const solution = await solveChallenge({ challenge, deriveKey }); return { solution, ms: performance.now() - t }; };
window.ready = true;
</script>`;
const server = http.createServer((req, res) => {
  if (req.url === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(page);
  const file = path.join(esm, (req.url ?? '').replace(/^\/altcha\//, ''));
  if (!file.startsWith(esm) || !fs.existsSync(file)) return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'text/javascript' }).end(fs.readFileSync(file));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
const tab = await browser.newPage();
await tab.goto(`http://127.0.0.1:${server.address().port}/`);
await tab.waitForFunction(() => globalThis.ready === true);

const made = [];
const solved = [];
const checked = [];
let counters = 0;
for (let i = 0; i < count; i++) {
  let t = performance.now();
  const challenge = await createChallenge({ algorithm: 'PBKDF2/SHA-256', cost, counter: randomInt(Math.ceil(work / 2), work), deriveKey, expiresAt: new Date(Date.now() + 600_000), ...keys });
  made.push(performance.now() - t);
  const { solution, ms } = await tab.evaluate((c) => globalThis.solve(c), challenge);
  solved.push(ms);
  counters += solution.counter;
  t = performance.now();
  const result = await verifySolution({ challenge, solution, deriveKey, ...keys });
  checked.push(performance.now() - t);
  if (!result.verified) throw new Error('a solution did not verify');
  process.stdout.write(`\r${i + 1}/${count} challenges`);
}
process.stdout.write('\n');
await browser.close();
server.close();

const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
const row = (name, values) => console.log(`${name.padEnd(34)} median ${quantile(values, 0.5).toFixed(1).padStart(8)} ms   p90 ${quantile(values, 0.9).toFixed(1).padStart(8)} ms   max ${Math.max(...values).toFixed(1).padStart(8)} ms`);
console.log(`ALTCHA PBKDF2-SHA-256, work ${work}, cost ${cost}: ${count} challenges, mean counter ${Math.round(counters / count)}; Chromium ${(await import('node:child_process')).execFileSync(chromium, ['--version']).toString().trim()}`);
row('server: make a challenge', made);
row('browser: solve (Web Crypto)', solved);
row('server: check a solution', checked);
