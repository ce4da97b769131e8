/* latency_run.test.js -- the latency panel's percentiles over the whole
 * run (suite browser), from recorder-web's whole-run histograms
 * (viewer-web/latlod.h), for a run longer than the page holds.
 *
 * range_writer --ramp makes req's durations grow over the run, a step
 * every second.  recorder-web runs with a small --client-queue, so a page
 * that joins seconds in holds only the last stretch (its detail starts
 * late).  The panel's plot must still cover the run from its start, on
 * the LOD's grid, and each bucket's P50 and P99 must hold the exact
 * figures computed from the trace's JSON export (/trace.json) of the
 * same run: to the bin (10 per decade).  A screenshot goes to
 * WEB_SCREENSHOTS. */
'use strict';
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { lineMatching, startServer, stopClean, stop, check, main, until, sleep, need, request } = require('./harness');
const { launchPage } = require('./chromium');   /* exits 77 without a browser */

const shots = need('WEB_SCREENSHOTS');
fs.mkdirSync(shots, { recursive: true });
const PERIOD = 10e6;
const rank = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];

/* req's calls in the JSON export, as [begin, end] ns of the segment's
 * clock: its ts are µs from the trace's start; req's first begin is the
 * writer's base (its cycle 0). */
function reqCalls(trace, base) {
  const ev = trace.traceEvents.filter((e) => e.name === 'req' && (e.ph === 'B' || e.ph === 'E'));
  const open = new Map(), calls = [];
  for (const e of ev) {
    if (e.ph === 'B') open.set(e.tid, e.ts);
    else if (open.has(e.tid)) { calls.push([open.get(e.tid), e.ts]); open.delete(e.tid); }
  }
  const first = Math.min(...calls.map((c) => c[0]));
  return calls.map(([s, e]) => [Math.round((s - first) * 1e3) + base, Math.round((e - first) * 1e3) + base]);
}

main(async () => {
  const name = `weblat-${process.pid}-${Date.now() % 1e6}`;
  const writer = spawn(need('RANGE_WRITER'), ['--burst-every', '1000000', '--burst', '0', '--ramp', '100'], {
    env: { ...process.env, RECORDER_NAME: name }, stdio: ['ignore', 'pipe', 'inherit'] });
  process.on('exit', () => { try { writer.kill('SIGKILL'); } catch (e) { /* gone */ } });
  const m = await lineMatching(writer, /^ready (\d+) base (\d+)$/, 20000, 'range_writer');
  const base = Number(m[2]);
  /* 16 KB per page: a page that joins gets about 2 s of history. */
  const srv = await startServer([name, '--port', '0', '--client-queue', '16']);
  await sleep(6000);
  const { ctx, profile, page, errors } = await launchPage();
  try {
    await page.goto(srv.url);
    const state = () => page.evaluate(() => window.__recorder.state());
    const ui = () => page.evaluate(() => window.__recorder.interact());
    check(await until(async () => (await state()).topRows.includes('req'), 30000, 200), 'the page connects and lists req');
    await page.click('#top-body tr:has-text("req")');
    await page.click('#right-tabs button[data-tab="latency"]');
    let u = await until(async () => { const v = await ui(); return v.latency && v.latency.over.source === 'server' ? v : null; }, 20000, 200);
    check(u, 'the plot shows the server\'s whole-run series', u && u.latency);
    /* The run ends: everything is in both the summary and the export.
     * recorder-web reads what is left and sends the series at most once a
     * second, so wait until the plot counts what the export holds, the
     * same count twice in a row. */
    writer.kill('SIGTERM');
    await new Promise((r) => (writer.exitCode !== null || writer.signalCode !== null ? r() : writer.once('exit', r)));
    let calls = [], agreed = -1;
    const total = (v) => v.latency.over.rows.reduce((x, y) => x + y.n, 0);
    await until(async () => {
      const r = await request(srv.port, '/trace.json?t=' + srv.token);
      calls = reqCalls(JSON.parse(r.body.toString()), base);
      const v = await ui();
      if (!(v.latency && v.latency.over.source === 'server')) return false;
      u = v;
      const same = total(v) === calls.length && calls.length === agreed;
      agreed = total(v) === calls.length ? calls.length : -1;
      return same;
    }, 60000, 500);
    const s = await state();
    const o = u.latency.over;
    const lod = await page.evaluate(() => { const l = window.__recorder.store.lodMsg; return l && { t0: l.t0, width: l.width }; });
    check(s.detailStart > base + 3e9, 'the page holds only the run\'s last stretch', { detailStart: (s.detailStart - base) / 1e9 });
    check(o.rows.length && o.rows[0].t <= base + 0.5e9 && o.x0 <= base, 'the plot covers the run from its start',
      { first: o.rows.length && (o.rows[0].t - base) / 1e9, x0: (o.x0 - base) / 1e9 });
    check(lod && o.width === lod.width, 'its buckets are the timeline summary\'s', { over: o.width, lod });
    check(/whole run · server/.test(u.latency.overTitle), 'the plot says it shows the server\'s whole run', u.latency.overTitle);

    check(calls.length > 500 && total(u) === calls.length, 'the series counts every req call of the export', { series: total(u), json: calls.length });
    /* Per bucket: the exact P50 and P99 lie in the bins the plot shows. */
    const bad = [];
    let early = null, late = null;
    for (const row of o.rows) {
      const d = calls.filter(([, e]) => e >= row.t && e < row.t + o.width).map(([b, e]) => e - b).sort((x, y) => x - y);
      const want = [rank(d, 0.5), rank(d, 0.99)], got = [row.bins[0], row.bins[2]];
      if (d.length !== row.n || want.some((v, i) => !(v >= got[i][0] * (1 - 1e-12) && v < got[i][1] * (1 + 1e-12))))
        bad.push({ t: (row.t - base) / 1e9, n: row.n, want, got, calls: d.length });
      if (row.t < base + 1e9 && row.n) early = early || want[0];
      late = want[0];
    }
    check(o.rows.length >= 5 && bad.length === 0, 'each bucket\'s P50 and P99 match the export, to the bin', { rows: o.rows.length, bad: bad.slice(0, 5) });
    check(early !== null && late > early, 'the ramp shows: late P50 above early P50', { early, late });
    check(!o.rows.some((x) => x.lost), 'no bucket is marked partial (nothing was lost)');
    await page.locator('.bottom .panel').nth(1).screenshot({ path: path.join(shots, 'panel-latency-run.png') });
    check(errors.length === 0, 'no page errors', errors.slice(0, 3));
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
    await stop(writer);
    await stopClean(srv);
  }
});
