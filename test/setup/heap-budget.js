// The jest workers' heap budget (jest.config.js says why): jest forks its workers with the parent's
// execArgv, so the flag is added there before any worker is forked, and taken out again by a config
// whose workers hold more (jest.ha.config.js).
const HEAP_BUDGET = '--max-old-space-size=420';

/** Gives the workers forked from now on the budget, unless the command line set a heap size itself. */
function budgetWorkers() {
  if (!process.execArgv.some((arg) => arg.startsWith('--max-old-space-size'))) process.execArgv.push(HEAP_BUDGET);
}

/** Forks from now on without the budget. */
function liftWorkerBudget() {
  const at = process.execArgv.indexOf(HEAP_BUDGET);
  if (at >= 0) process.execArgv.splice(at, 1);
}

module.exports = { budgetWorkers, liftWorkerBudget };
