// How a full bench run is recorded: a row in bench/RESULTS.md's run table, and the table printed at the end.
import fs from 'node:fs';
import path from 'node:path';
import { root } from './context.mjs';

// "Intel(R) Xeon(R) Processor" → "Intel Xeon": the machines behind one host name have differed.
const cpuName = (model = '') => model.replace(/\((R|TM)\)/g, '').replace(/\b(Processor|CPU)\b.*$/, '').replace(/\s+/g, ' ').trim() || '?';

/** Adds the run's row to the table of bench/RESULTS.md (made when missing). */
export function appendSummary(record) {
  const file = path.join(root, 'bench', 'RESULTS.md');
  const r = record.results;
  const cell = (v) => (v === undefined || v === null ? '–' : String(v));
  if (!fs.existsSync(file)) {
    fs.writeFileSync(
      file,
      '# Benchmark results\n\nOne row per `npm run bench`; the full numbers are in `results/`.\n\n' +
        '| date | host | cpu | cores | node | cost | bcrypt/s | login/s | login÷bcrypt | refresh/s | refresh p99 ms @1000/s | proxy ratio | 404 ratio | desktop/s | notifier ev/s | notifier p99 ms @500/s | max RSS MB |\n' +
        '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n',
    );
  }
  const maxRss = r.rssMb ? Math.max(...Object.values(r.rssMb).filter((v) => v !== null)) : null;
  // The row goes at the end of the run table (the first table), before any section written below it.
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const header = lines.findIndex((line) => line.startsWith('| date | host |'));
  let end = header + 1;
  while (end + 1 < lines.length && lines[end + 1].startsWith('|')) end++;
  const row = `| ${record.date.slice(0, 16)} | ${record.host} | ${cpuName(record.machine.cpu)} | ${record.machine.cores} | ${record.machine.node} | ${record.bcryptCost} | ${cell(r.login?.bcryptCeiling ?? r['bcrypt ceiling']?.comparesPerSecond)} | ${cell(r.login?.requestsPerSecond)} | ${cell(r.login?.ratioToBcryptCeiling)} | ${cell(r.refresh?.requestsPerSecond)} | ${cell(r['refresh at 1000/s']?.p99Ms)} | ${cell(r['proxy: through the gateway']?.ratioToDirect)} | ${cell(r['404: gateway']?.ratioToBare)} | ${cell(r['desktop latest-version']?.requestsPerSecond)} | ${cell(r.notifier?.eventsPerSecond)} | ${cell(r.notifier?.steadyP99Ms)} | ${cell(maxRss)} |`;
  lines.splice(end + 1, 0, row);
  fs.writeFileSync(file, lines.join('\n'));
}

export function printTable(results) {
  const rows = Object.entries(results)
    .filter(([name]) => name !== 'rssMb')
    .map(([name, r]) => ({
      scenario: name,
      'req/s': r.requestsPerSecond ?? r.comparesPerSecond ?? r.eventsPerSecond,
      p50: r.p50Ms ?? r.steadyP50Ms ?? '',
      p99: r.p99Ms ?? r.steadyP99Ms ?? '',
      errors: r.errors ?? '',
      'non-2xx/unexpected': r.unexpectedStatus ?? '',
      ratio: r.ratioToBcryptCeiling ?? r.ratioToDirect ?? r.ratioToBare ?? r.ratioToBefore ?? r.ratio ?? r.perCore ?? '',
      status: r.failed ? 'FAILED' : 'ok',
    }));
  console.table(rows);
}
