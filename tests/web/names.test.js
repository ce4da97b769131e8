/* names.test.js -- names that differ stay distinguishable, and the search
 * counter stays right while live (issue 20, items 2 and 8), in chromium
 * (suite browser).
 *
 * web_target --layers 10 records ten scopes whose names differ only in a
 * middle number (transformer.model.layers.2.feed_forward.down_proj.matmul ... .11.).  At
 * 1024 and 1280 px wide, in the top table and in the search's results
 * (the table filtered by the search box):
 *   - the ten names as shown are all different, each shows its whole
 *     number, and each fits its cell (nothing cut further by the
 *     browser); the full name is the cell's title;
 *   - every figure fits its cell: none loses its unit.
 * Live, the search's counter follows the data, and the place of the
 * occurrence jumped to never exceeds the total (it read "37501 of 37280":
 * the total was counted when the query was typed, the place at the
 * jump).  Screenshots: WEB_SCREENSHOTS/names-*.png. */
'use strict';
const fs = require('fs');
const path = require('path');
const { startTarget, startServer, stopClean, stop, check, main, until, need } = require('./harness');
const { launchPage } = require('./chromium');   /* exits 77 without a browser */

const shots = need('WEB_SCREENSHOTS');
fs.mkdirSync(shots, { recursive: true });
const LAYERS = 10;
const settled = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/* The table as shown: each row's name (shown, full, whether it fits)
 * and its figures (whether each fits). */
function readTable() {
  return [...document.querySelectorAll('#top-body tr:not([hidden])')].map((tr) => {
    const td = tr.cells_[0], tx = td.tx, r = td.getBoundingClientRect(), pad = parseFloat(getComputedStyle(td).paddingRight);
    const figs = tr.cells_.slice(1).filter((c) => c.clientWidth > 0 && getComputedStyle(c).visibility !== 'hidden')
      .map((c) => ({ text: c.textContent, fits: c.scrollWidth <= c.clientWidth }));
    return { shown: tx.textContent, full: tr.row_.label, title: td.title, fits: tx.getBoundingClientRect().right <= r.right - pad + 0.5,
      figs };
  });
}

async function checkRows(page, what) {
  const rows = await page.evaluate(readTable);
  const layer = rows.filter((r) => r.full.startsWith('transformer.model.layers.'));
  const shown = layer.map((r) => r.shown);
  check(layer.length === LAYERS && new Set(shown).size === LAYERS, `${what}: the ten layer names read differently`, shown);
  const bad = layer.filter((r) => {
    const n = r.full.split('.')[3];
    return !r.fits || !new RegExp(`(^|[^0-9])${n}([^0-9]|$)`).test(r.shown) || !r.title.startsWith(r.full);
  });
  check(bad.length === 0, `${what}: each shows its whole number, fits its cell, and has its full name on hover`, bad);
  check(layer.some((r) => r.shown !== r.full), `${what}: the names are cut (the test is meaningful)`, shown);
  const cut = rows.flatMap((r) => r.figs.filter((f) => !f.fits || !/^(—|~?[0-9.]+(k|M|G)?|~?[0-9.]+ (ns|µs|ms|s|min)|~?[0-9.]+%)$/.test(f.text)));
  check(rows.length > 0 && cut.length === 0, `${what}: every figure is whole, with its unit`, cut.slice(0, 5));
}

main(async () => {
  const target = await startTarget(['--threads', '3', '--rate', '4000', '--work-ns', '20000', '--layers', String(LAYERS)]);
  const srv = await startServer([String(target.pid), '--port', '0']);
  const { ctx, profile, page, errors } = await launchPage();
  const state = () => page.evaluate(() => window.__recorder.state());
  const ist = () => page.evaluate(() => window.__recorder.interact());
  try {
    await page.goto(srv.url);
    check(await until(async () => (await state()).tableRows.filter((r) => r.name.startsWith('transformer.model.layers.')).length === LAYERS, 60000, 200),
      'the top table shows the ten layer scopes');

    /* ---- item 2: the table and the search's results, at 1024 and 1280 px ---- */
    for (const w of [1024, 1280]) {
      await page.setViewportSize({ width: w, height: 800 });
      await settled(page);
      await checkRows(page, `${w} px, the table`);
      await page.screenshot({ path: path.join(shots, `names-${w}.png`) });
      await page.locator('#left-panel').screenshot({ path: path.join(shots, `panel-names-${w}.png`) });
      await page.fill('#search', 'feed_forward');
      check(await until(async () => (await state()).tableRows.length === LAYERS, 10000),
        `${w} px: the search's results are the ten layer scopes`);
      await settled(page);
      await checkRows(page, `${w} px, the search's results`);
      await page.screenshot({ path: path.join(shots, `names-${w}-search.png`) });
      await page.fill('#search', '');
    }

    /* ---- item 8: the search counter, live ---- */
    await page.setViewportSize({ width: 1440, height: 900 });
    /* The view reaches back before everything held, so the previous
     * occurrence from its left edge wraps to the newest one. */
    await page.evaluate(() => window.__recorder.timeline.zoom(64));
    check(await until(async () => {
      const s = await state();
      return s.live && s.t0 < Math.min(...s.lanes.map((L) => L.firstTs));
    }, 10000), 'the live view reaches back before the first slice held');
    await page.fill('#search', 'feed_forward');
    const found = (t) => Number((t.match(/^(\d+) found$/) || [])[1] || NaN);
    const first = found((await ist()).searchCount);
    check(first > 0, 'the counter says how many slices match', first);
    /* Live, it follows the data (it stayed at the first count). */
    check(await until(async () => found((await ist()).searchCount) > first + 100, 30000, 200),
      'live, the counter follows the data', { first, now: (await ist()).searchCount });
    /* Jump to the newest occurrence: its place is at most the total. */
    await page.focus('#search');
    await page.keyboard.press('Shift+Enter');
    const place = (t) => { const m = t.match(/^(\d+) of (\d+)$/); return m ? { i: Number(m[1]), n: Number(m[2]) } : null; };
    let p = place((await ist()).searchCount);
    check(p && p.i >= 1 && p.i <= p.n && p.n > first, 'the newest occurrence: its place is at most the total', { text: (await ist()).searchCount, first });
    /* More data arrives (paused, the page still receives it): the
     * counter is recounted, the place with it, and stays within. */
    const n0 = p ? p.n : 0;
    check(await until(async () => { const q = place((await ist()).searchCount); return q && q.n > n0; }, 30000, 200),
      'while more arrives, the total is recounted');
    p = place((await ist()).searchCount);
    check(p && p.i >= 1 && p.i <= p.n, 'and the place stays within it', (await ist()).searchCount);
    await page.keyboard.press('Enter');
    const q = place((await ist()).searchCount);
    check(q && p && q.i > p.i && q.i <= q.n, 'the next occurrence: a later place, within the total', { before: p, after: q });
    await page.screenshot({ path: path.join(shots, 'names-search-count.png') });
    check(errors.length === 0, 'no errors in the page', errors.slice(0, 5));
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
    await stopClean(srv);
    await stop(target.proc);
  }
});
