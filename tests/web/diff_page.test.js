/* diff_page.test.js -- recorder-web A.rec B.rec in the page (issue 20,
 * item 5), in chromium (suite browser):
 *   - the "A vs B" table shows /diff.json's rows (the rows `recorder
 *     report A --diff B` prints, web-diff checks that) in rec_stats_diff's
 *     order, with the change in % as report words it;
 *   - clicking a change's heading sorts by the size of that change (the
 *     server's order for that key), again reverses; "scope" sorts by name;
 *   - picking a row overlays both runs' histograms in the latency panel:
 *     the bars are the rows' counts per octave, A's and B's in their own
 *     colours (read back from the canvas where one stands above the
 *     other), a legend names both files;
 *   - "Top scopes (A)" goes back to A's top table, and the timeline shows A;
 *   - at 1024x768 ... 2560x1440 nothing reaches past the window's right
 *     edge and the table fits its panel; a screenshot of each goes to
 *     WEB_SCREENSHOTS/diff-WxH.png. */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { startServer, stopClean, run, request, check, main, until, need } = require('./harness');
const { launchPage } = require('./chromium');   /* exits 77 without a browser */

const shots = need('WEB_SCREENSHOTS');
fs.mkdirSync(shots, { recursive: true });
const SIZES = [[1024, 768], [1280, 800], [1366, 768], [1440, 900], [1920, 1080], [2560, 1440]];
const settled = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

function pastRight() {
  const W = document.documentElement.clientWidth, out = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (r.right > W + 0.5) out.push({ el: el.tagName + (el.id ? '#' + el.id : ''), right: Math.round(r.right) });
  }
  const wrap = document.getElementById('diff-wrap');
  return { W, scroll: document.documentElement.scrollWidth, out: out.slice(0, 8), n: out.length,
    table: wrap.scrollWidth, wrap: wrap.clientWidth };
}

function pct(row, fig) {
  if (!row.a) return 'new';
  if (!row.b) return 'gone';
  const va = row.a[fig], vb = row.b[fig];
  if (va === 0) return vb === 0 ? '0.0%' : '-';
  const p = (100 * (vb - va)) / va;
  return (p >= 0 ? '+' : '') + p.toFixed(1) + '%';
}

/* The canvas pixel (CSS px) as [r, g, b]. */
const pixel = (page, x, y) => page.evaluate(([X, Y]) => {
  const c = document.getElementById('diff-lat-canvas'), dpr = c.width / c.getBoundingClientRect().width;
  return [...c.getContext('2d').getImageData(Math.round(X * dpr), Math.round(Y * dpr), 1, 1).data].slice(0, 3);
}, [x, y]);
const blueish = ([r, , b]) => b > r + 40;
const amberish = ([r, , b]) => r > b + 40;

main(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webdiffpage-'));
  const a = path.join(dir, 'a.rec'), b = path.join(dir, 'b.rec');
  for (const [file, extra] of [[a, ['--work-ns', '10000']], [b, ['--work-ns', '30000', '--layers', '3']]]) {
    const cap = await run(need('RECORDER_CLI'), ['capture', '-o', file, '-q', '--', need('WEB_TARGET'), '--threads', '2',
      '--rate', '3000', '--seconds', '1', ...extra], 60000);
    check(cap.code === 0 && fs.existsSync(file), `recorder capture writes ${path.basename(file)}`, cap.stderr);
  }
  const srv = await startServer([a, b, '--port', '0']);
  const { ctx, profile, page, errors } = await launchPage();
  try {
    const d = JSON.parse((await request(srv.port, '/diff.json?t=' + srv.token)).body.toString());
    const names = (key) => d.order[key].map((i) => d.rows[i].name);
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.goto(srv.url);
    check(await until(() => page.evaluate(() => {
      const s = window.__recorder.state(), x = window.__recorder.diff();
      return s.file && !s.loading && s.topRows.length >= 4 && x.diff && x.rows.length >= 6;
    }), 60000, 200), 'the page shows the diff table, and A on the timeline');
    let x = await page.evaluate(() => window.__recorder.diff());
    check(x.view === 'diff' && x.key === 'mean' && !x.rev, 'it opens on "A vs B", by the change in the mean', x);
    check(x.rows.map((r) => r.name).join('\n') === names('mean').join('\n'), "the rows in rec_stats_diff's order of the mean",
      { page: x.rows.map((r) => r.name), server: names('mean') });
    const col = (t) => x.columns.indexOf(t);
    const bad = [];
    x.rows.forEach((r, i) => {
      const j = d.rows[d.order.mean[i]];
      for (const [t, fig] of [['Δmean', 'mean_ns'], ['Δp99', 'p99_ns'], ['Δcalls', 'calls']])
        if (col(t) >= 0 && r.cells[col(t)] !== pct(j, fig)) bad.push([r.name, t, r.cells[col(t)], pct(j, fig)]);
      if (col('calls A') >= 0 && r.cells[col('calls A')] !== (j.a ? String(j.a.calls) : '-')) bad.push([r.name, 'calls A', r.cells[col('calls A')]]);
    });
    check(col('Δmean') >= 0 && col('Δp99') >= 0 && bad.length === 0, "each row's figures and changes are the server's", { columns: x.columns, bad: bad.slice(0, 5) });
    check(x.rows.some((r) => r.cells.includes('new')) && x.rows.some((r) => r.cells.includes('gone')),
      'scopes only in B read "new", only in A "gone"');
    const tl = await page.evaluate(() => window.__recorder.state());
    check(tl.procs.length <= 1 && tl.lanes.length >= 2 && (await page.evaluate(() => document.getElementById('diff-badge').textContent)).includes('timeline: A'),
      'the timeline shows A, and the header says so', { lanes: tl.lanes.length });

    /* Sorting by the size of a change: the server's order for the key. */
    const sortBy = async (title) => {
      await page.click(`#diff-table thead th:text-is("${title}")`);
      return page.evaluate(() => window.__recorder.diff());
    };
    for (const [title, key] of [['Δp99', 'p99'], ['Δcalls', 'calls'], ['scope', 'name'], ['Δp50', 'p50']]) {
      x = await sortBy(title);
      check(x.key === key && !x.rev && x.rows.map((r) => r.name).join('\n') === names(key).join('\n'),
        `"${title}" sorts by ${key === 'name' ? 'name' : 'the size of the change in ' + key}`, { key: x.key, rows: x.rows.map((r) => r.name), want: names(key) });
      x = await sortBy(title);
      check(x.key === key && x.rev && x.rows.map((r) => r.name).join('\n') === [...names(key)].reverse().join('\n'),
        `"${title}" again reverses it`, { key: x.key, rev: x.rev });
    }
    x = await sortBy('Δmean');

    /* Both histograms overlaid: a scope in both runs, far apart. */
    const both = d.rows.find((r) => r.name === 'attention');
    check(both && both.a && both.b, 'attention is in both runs');
    await page.click('#diff-table tbody tr:has(td.l[title="attention"])');
    check(await until(() => page.evaluate(() => {
      const s = window.__recorder.diff();
      return s.picked === 'attention' && s.overlay && s.overlay.bars;
    }), 10000), 'picking a row shows the overlay');
    await settled(page);
    x = await page.evaluate(() => window.__recorder.diff());
    const it = await page.evaluate(() => window.__recorder.interact());
    check(it.tab === 'latency', 'in the latency panel', it.tab);
    const o = x.overlay;
    const want = (s) => s.hist.map((c, k) => ({ octave: s.hist_lo + k, calls: c }));
    check(JSON.stringify(o.bars.a) === JSON.stringify(want(both.a)) && JSON.stringify(o.bars.b) === JSON.stringify(want(both.b)),
      "the bars are each run's calls per octave", { drawn: o.bars, a: want(both.a), b: want(both.b) });
    check(o.legend.length === 2 && o.legend[0].text.includes('a.rec') && o.legend[1].text.includes('b.rec') && o.legend[0].color !== o.legend[1].color,
      'a legend names both files, in two colours', o.legend);
    check(x.figures.includes(a) && x.figures.includes(b), 'the figures above name both files', x.figures);
    /* Read back: where A's bar stands above B's, its top is A's colour;
     * where B's stands above A's, B's.  Each run's most common octave
     * (B's work is 3x A's, so they differ) decides, whatever the load. */
    const count = (r, oct) => (o.bars[r].find((q) => q.octave === oct) || { calls: 0 }).calls;
    const above = (r, s) => o.bars[r].reduce((best, q) => (q.calls - count(s, q.octave) > (best ? best.calls - count(s, best.octave) : 0) ? q : best), null);
    const bw = o.plot.w / o.bins, px = (c) => (c / o.top) * o.plot.h;
    const probe = (bar, other) => [o.plot.x + (bar.octave - o.lo + 0.5) * bw, o.plot.y + o.plot.h - px(bar.calls) + 2,
      px(bar.calls) - px(count(other, bar.octave))];
    const upA = above('a', 'b'), upB = above('b', 'a');
    const [xa, ya, da] = upA ? probe(upA, 'b') : [0, 0, 0], [xb, yb, db] = upB ? probe(upB, 'a') : [0, 0, 0];
    check(upA && upB && da > 4 && db > 4, "each run has a bar standing above the other's", { bars: o.bars, da, db });
    if (upA && upB) {
      const pa = await pixel(page, xa, ya), pb = await pixel(page, xb, yb);
      check(blueish(pa) && amberish(pb), "A's bar is drawn in A's colour, B's in B's", { pa, pb, upA, upB });
    }

    /* Every common size: nothing past the right edge, the table fits. */
    for (const [w, h] of SIZES) {
      await page.setViewportSize({ width: w, height: h });
      await settled(page);
      await settled(page);
      const got = await page.evaluate(pastRight);
      check(got.W === w && got.n === 0 && got.scroll <= w, `${w}x${h}: nothing reaches past the right edge`, got);
      check(got.table <= got.wrap + 1, `${w}x${h}: the diff table fits its panel`, got);
      x = await page.evaluate(() => window.__recorder.diff());
      check(x.columns.includes('Δmean') && x.overlay && x.overlay.bars && x.overlay.plot.w > 20 &&
        x.overlay.legend.length === 2 && x.overlay.legend[1].text.includes('b.rec'),
        `${w}x${h}: the change in the mean and the overlay, with its legend, are shown`, { columns: x.columns, overlay: x.overlay && [x.overlay.plot, x.overlay.legend] });
      await page.screenshot({ path: path.join(shots, `diff-${w}x${h}.png`) });
    }

    /* Back to A's top scopes, and to the diff. */
    await page.click('#left-tabs button[data-v="top"]');
    const topShown = await page.evaluate(() => !document.getElementById('top-wrap').hidden && document.getElementById('diff-wrap').hidden &&
      document.querySelectorAll('#top-body tr:not([hidden])').length >= 4);
    check(topShown, '"Top scopes (A)" shows the top table of A');
    await page.click('#left-tabs button[data-v="diff"]');
    check(await page.evaluate(() => !document.getElementById('diff-wrap').hidden && window.__recorder.diff().view === 'diff'),
      '"A vs B" shows the diff again');
    check(errors.length === 0, 'no errors in the page', errors.slice(0, 5));
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
    await stopClean(srv);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
