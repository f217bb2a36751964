#!/usr/bin/env node
// What Chromium's browser process (not its renderers) spends on the steps a browser test repeats:
// opening a browser context, its page (a headless window), a navigation, typing, half a second idle,
// closing. Twenty contexts in turn on a small local page; each step's CPU from the scheduler's clock
// (cpuSecondsExact: the ticks of /proc/<pid>/stat misread a process that wakes briefly and often).
// The flags are the test harness's (libs/test-harness/src/chromium-args.json); EXTRA='--flag …' adds
// some, to try one. Usage: node bench/chromium-costs.mjs [contexts]
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { cpuSecondsExact } from './lib/processes.mjs';

const require = createRequire(import.meta.url);
const puppeteer = require('puppeteer-core');

const contexts = Number(process.argv[2] ?? 20);
const extra = (process.env.EXTRA ?? '').split(' ').filter(Boolean);
const html = '<!doctype html><title>t</title><form><label for=e>Email</label><input id=e><button>Go</button></form>';
/** The browser process's own CPU (its threads, not its children), in ms. */
const cpuMs = (pid) => cpuSecondsExact(pid) * 1000;

const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html)).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const url = `http://127.0.0.1:${server.address().port}/`;
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: [...require('../libs/test-harness/src/chromium-args.json'), ...extra],
});
const pid = browser.process().pid;
const spent = {};
let last = cpuMs(pid);
const step = (name) => {
  const now = cpuMs(pid);
  spent[name] = (spent[name] ?? 0) + now - last;
  last = now;
};
try {
  for (let i = 0; i < contexts; i++) {
    const context = await browser.createBrowserContext();
    step('context');
    const page = await context.newPage();
    step('page');
    await page.setViewport({ width: 360, height: 740 });
    await page.goto(url);
    step('navigation');
    await page.type('#e', 'someone@example.com');
    step('typing 19 keys');
    await new Promise((resolve) => setTimeout(resolve, 500));
    step('idle 500 ms');
    await context.close();
    step('close');
  }
} finally {
  await browser.close();
  server.close();
}
// The whole tree, reaped by this process once the browser closed: browser, renderers, GPU, network.
const selfStat = fs.readFileSync('/proc/self/stat', 'utf8');
const reaped = selfStat.slice(selfStat.lastIndexOf(')') + 2).split(' ');
const treeMs = (Number(reaped[13]) + Number(reaped[14])) * 10;
const perContext = Object.fromEntries(Object.entries(spent).map(([name, ms]) => [name, Math.round(ms / contexts)]));
const browserProcessMs = Math.round(Object.values(spent).reduce((a, b) => a + b, 0));
console.log(JSON.stringify({ contexts, extra: extra.join(' '), browserProcessMsPerContext: perContext, browserProcessMs, wholeTreeMs: treeMs }));
