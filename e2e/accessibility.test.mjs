// Accessibility: axe-core (the npm package in node_modules, never fetched) audits every page in
// each state a learner reaches: the explorer as it opens, each lesson step, "Break it" with a
// mistake on, the symbols list open, phone width; the practice page with a question open and
// revealed, and the compare view; the training page after a short run with every section shown.
// Every violation axe reports (all impacts, its default WCAG A/AA and best-practice rules) fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { useApp, eventually, REPO_ROOT } from './harness.mjs';

const app = useApp();
const AXE = readFile(path.join(REPO_ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');

/** Runs axe on the page as it is and returns its violations in a readable form. */
async function audit(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) {
    // DevTools-protocol evaluation: not an inline script, so the pages' CSP does not apply.
    await page.evaluate(await AXE);
  }
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary.split('\n').slice(1).join(' ').trim()}`),
    }));
  });
  return violations;
}

/** Fails with every violation of every state, named. */
async function assertClean(page, state) {
  const violations = await audit(page);
  assert.deepEqual(
    violations.map((v) => `${state}: [${v.impact}] ${v.id} (${v.help})\n    ${v.nodes.join('\n    ')}`),
    [],
  );
}

test('explorer: every lesson step, Break it, symbols, phone and dark mode', { timeout: 240_000 }, async () => {
  for (const { viewport, colorScheme } of [
    { viewport: { width: 1280, height: 800 }, colorScheme: 'light' },
    { viewport: { width: 360, height: 740 }, colorScheme: 'dark' },
  ]) {
    const { page, context, consoleLog } = await app.newPage({ viewport, colorScheme });
    try {
      const where = `explorer ${viewport.width}px ${colorScheme}`;
      for (const step of ['average', 'softmax', 'attention', 'scaling', 'heads', 'positions']) {
        await app.open(page, `step=${step}`);
        await page.locator('[data-testid=step-adds]').waitFor();
        await assertClean(page, `${where}, step ${step}`);
      }
      await app.open(page, 'broken=triu,dropout');
      await assertClean(page, `${where}, Break it: triu and dropout`);
      await app.open(page, '');
      await page.locator('[data-testid=glossary] summary').click();
      await assertClean(page, `${where}, symbols open`);
      await app.open(page, 'w=grammar');
      await eventually(async () => assert.match(await page.locator('[data-testid=weights-note]').textContent(), /Trained/), 20_000);
      await assertClean(page, `${where}, trained weights`);
      consoleLog.assertClean();
    } finally {
      await context.close();
    }
  }
});

test('practice page: a question open, one revealed, and the compare view', { timeout: 120_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage();
  try {
    await app.open(page, 'cmp=tau%3A2', { file: 'practice.html' });
    await page.locator('#quiz fieldset').waitFor();
    await assertClean(page, 'practice, question open');
    const radio = page.locator('#quiz input[type=radio]').first();
    if (await radio.count()) await radio.check();
    else await page.getByLabel('Your answer', { exact: true }).fill('0.5');
    await page.getByRole('button', { name: 'Check' }).click();
    await page.locator('[data-testid=quiz-number]').waitFor();
    await assertClean(page, 'practice, answer revealed');
    await app.open(page, 'broken=mask-zero', { file: 'practice.html' });
    await page.locator('#quiz fieldset').waitFor();
    await assertClean(page, 'practice, broken heatmap');
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('training page: after a short run, at 1280 px and on a phone', { timeout: 180_000 }, async () => {
  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 360, height: 740 },
  ]) {
    const { page, context, consoleLog } = await app.newPage({ viewport });
    try {
      await app.open(page, 'tsteps=50', { file: 'train.html' });
      await eventually(async () => assert.match(await page.getByTestId('training-status').textContent(), /Trained for 50 steps/), 60_000);
      await assertClean(page, `training ${viewport.width}px, repeat task at step 50`);
      await app.open(page, 'train=grammar&tsteps=25', { file: 'train.html' });
      await eventually(async () => assert.match(await page.getByTestId('training-status').textContent(), /Trained for 25 steps/), 60_000);
      await assertClean(page, `training ${viewport.width}px, tiny grammar at step 25`);
      consoleLog.assertClean();
    } finally {
      await context.close();
    }
  }
});
