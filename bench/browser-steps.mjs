#!/usr/bin/env node
// What a browser test's steps cost in CPU, the way puppeteer's helpers take them against the way the
// test harness takes them (libs/test-harness/src/browser.ts): filling a labelled field ($$eval for
// the label, focus, one insertText; against one function in the page that focuses it, then the
// insertText) and pressing a button (waitForFunction for a button that stays put, then
// ElementHandle.click; against one function in the page that finds it, scrolls to it and measures
// it, then a mouse click at its middle). Each step `reps` times on one page of Chromium's headless
// shell with the harness's flags; the CPU is this process's and every Chromium process's (the
// scheduler's clock, all alive while measured), per step, in ms.
// Usage: node bench/browser-steps.mjs [reps]   (CHROMIUM_PATH for another browser)
/* global document, requestAnimationFrame -- the functions puppeteer runs in the page */
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { cpuSecondsExact } from './lib/processes.mjs';

const require = createRequire(import.meta.url);
const puppeteer = require('puppeteer-core');
const reps = Number(process.argv[2] ?? 200);
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium-headless-shell';

const html = '<!doctype html><title>t</title><form><label for=e>Email</label><input id=e><button type=button>Go</button></form>';
const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html)).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const browser = await puppeteer.launch({ executablePath, headless: /headless[-_]shell$/.test(executablePath) ? 'shell' : true, args: require('../libs/test-harness/src/chromium-args.json') });

/** The browser process and its descendants, from /proc's parent links. */
function chromiumPids() {
  const parents = new Map();
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      parents.set(Number(pid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone between the listing and the read
    }
  }
  const tree = new Set([browser.process().pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, parent] of parents) {
      if (tree.has(parent) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  return [...tree];
}
const cpuMs = () => {
  const own = process.cpuUsage();
  return (own.user + own.system) / 1000 + chromiumPids().reduce((sum, pid) => sum + (cpuSecondsExact(pid) ?? 0) * 1000, 0);
};

const page = await (await browser.createBrowserContext()).newPage();
await page.setViewport({ width: 360, height: 740 });
await page.goto(`http://localhost:${server.address().port}/`);

const steps = {
  'fill, puppeteer': async () => {
    const id = await page.$$eval('label', (labels, l) => labels.find((x) => x.textContent === l)?.getAttribute('for'), 'Email');
    await page.focus(`#${id}`);
    await page.keyboard.sendCharacter('a');
  },
  'fill, one trip': async () => {
    await page.evaluate((l) => {
      const label = [...document.querySelectorAll('label')].find((x) => x.textContent === l);
      document.getElementById(label.getAttribute('for')).focus();
    }, 'Email');
    await page.keyboard.sendCharacter('a');
  },
  'press, puppeteer': async () => {
    const found = await page.waitForFunction(
      async (t) => {
        const button = [...document.querySelectorAll('button')].find((b) => b.textContent === t && b.checkVisibility() && !b.disabled);
        if (!button) return null;
        const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
        const before = JSON.stringify(button.getBoundingClientRect());
        await frame();
        await frame();
        return JSON.stringify(button.getBoundingClientRect()) === before ? button : null;
      },
      { polling: 50 },
      'Go',
    );
    const button = found.asElement();
    await button.click();
    await button.dispose();
  },
  'press, one trip': async () => {
    const at = await page.evaluate(async (t) => {
      const button = [...document.querySelectorAll('button')].find((b) => b.textContent === t && b.checkVisibility() && !b.disabled);
      button.scrollIntoView({ block: 'center', inline: 'center' });
      const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
      const before = JSON.stringify(button.getBoundingClientRect());
      await frame();
      await frame();
      const box = button.getBoundingClientRect();
      return JSON.stringify(box) === before ? { x: box.x + box.width / 2, y: box.y + box.height / 2 } : null;
    }, 'Go');
    await page.mouse.click(at.x, at.y);
  },
};

const result = { reps, executablePath, msPerStep: {} };
try {
  for (const [name, step] of Object.entries(steps)) {
    for (let i = 0; i < 20; i++) await step();
    const before = cpuMs();
    for (let i = 0; i < reps; i++) await step();
    result.msPerStep[name] = Math.round(((cpuMs() - before) / reps) * 10) / 10;
  }
} finally {
  await browser.close();
  server.close();
}
console.log(JSON.stringify(result));
