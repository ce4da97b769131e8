/* interact.test.js -- the page's interaction features in chromium (suite
 * browser), against range_writer.c, whose trace is known to the
 * nanosecond: every figure checked here is computed by this test from
 * the writer's schedule, not read back from recorder-web.
 *
 *  - pause holds the top table and the flame graph while STATS keep coming;
 *  - a range dragged on the ruler: the table's calls, total, self, min,
 *    avg, max, p50/p95/p99 and total% for the range, exactly; the flame
 *    graph's time inside the range; the counter's min/avg/max there;
 *  - the latency panel of a picked row: P50/P90/P99/P99.9 and the
 *    percentiles per second, exactly;
 *  - a range over a burst that lost entries is marked partial (table,
 *    heading, latency); Esc clears the range, then the pick;
 *  - search: the table filters to the matches, next / previous jump
 *    between occurrences (buttons and Enter / shift+Enter);
 *  - keys: `?` shows them, W/A/S/D in either case.
 * Screenshots go to WEB_SCREENSHOTS. */
'use strict';
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { lineMatching, startServer, stopClean, stop, check, main, until, sleep, need, shownText } = require('./harness');
const { launchPage, closeBrowser } = require('./chromium');   /* exits 77 without a browser */

const shots = need('WEB_SCREENSHOTS');
fs.mkdirSync(shots, { recursive: true });

/* range_writer.c's schedule. */
const PERIOD = 10e6;
const DURS = [50, 80, 120, 200, 300, 500, 800, 1200, 2000, 3000, 5000, 100].map((us) => us * 1000);
const dur = (c) => DURS[(7 * c) % 12];
const BURST_EVERY = 200;   /* cycles 100, 300, 500... lose entries */

const rank = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];

/* What the trace holds in [a, b]: per scope, the calls that begin and
 * end there (duration, end); the time inside it (cut to it); the counter. */
function expected(base, a, b) {
  const calls = { req: [], parse: [], respond: [] }, inside = { req: 0, parse: 0, respond: 0 }, queue = [];
  const c0 = Math.max(0, Math.floor((a - base) / PERIOD) - 1), c1 = Math.ceil((b - base) / PERIOD) + 1;
  for (let c = c0; c <= c1; c++) {
    const s = base + c * PERIOD, d = dur(c);
    const add = (n, x, y) => {
      if (x >= a && y <= b) calls[n].push([y - x, y]);
      inside[n] += Math.max(0, Math.min(y, b) - Math.max(x, a));
    };
    add('req', s, s + d);
    add('parse', s, s + 20000);
    add('respond', s + d + 100000, s + d + 130000);
    if (s >= a && s <= b) queue.push(c % 10);
  }
  const rows = {};
  for (const [n, list] of Object.entries(calls)) {
    const d = list.map((x) => x[0]).sort((x, y) => x - y), total = d.reduce((x, y) => x + y, 0);
    rows[n] = { calls: d.length, total, self: n === 'req' ? total - 20000 * d.length : total, min: d[0], max: d[d.length - 1],
      avg: total / d.length, p50: rank(d, 0.5), p95: rank(d, 0.95), p99: rank(d, 0.99), totalFrac: total / (b - a), sorted: d,
      ends: list };
  }
  return { rows, inside, queue };
}

/* Whether [a, b] comes near a cycle that bursts. */
function nearBurst(base, a, b) {
  for (let c = Math.floor((a - base) / PERIOD) - 2; c <= Math.ceil((b - base) / PERIOD) + 2; c++)
    if (c >= 0 && c % BURST_EVERY === BURST_EVERY / 2) return true;
  return false;
}

const close = (x, y, rel = 1e-9) => Math.abs(x - y) <= rel * Math.max(1, Math.abs(y));

main(async () => {
  const name = `webui-${process.pid}-${Date.now() % 1e6}`;
  const writer = spawn(need('RANGE_WRITER'), ['--burst-every', String(BURST_EVERY), '--burst', '20000'], {
    env: { ...process.env, RECORDER_NAME: name, RECORDER_RING_KB: '64' }, stdio: ['ignore', 'pipe', 'inherit'] });
  process.on('exit', () => { try { writer.kill('SIGKILL'); } catch (e) { /* gone */ } });
  const m = await lineMatching(writer, /^ready (\d+) base (\d+)$/, 20000, 'range_writer');
  const base = Number(m[2]);
  const srv = await startServer([name, '--port', '0']);
  const browser = await launchPage();
  const { page, errors } = browser;
  try {
    await page.goto(srv.url);
    const state = () => page.evaluate(() => window.__recorder.state());
    const ui = () => page.evaluate(() => window.__recorder.interact());
    /* Two bursts behind us (cycles 100 and 300), and the STATS of a window. */
    const up = await until(async () => {
      const s = await state();
      return s.connected && s.t1 > base + 3.6e9 && s.gapsSeen > 0 && s.topRows.includes('req');
    }, 60000, 200);
    let s = await state();
    check(up, 'the page connects, and range_writer\'s bursts lost entries', { t1: s.t1, base, gaps: s.gapsSeen, rows: s.topRows });

    /* ---- pause holds the table and the flame graph ---- */
    await page.click('#btn-pause');
    let u = await ui();
    const held = { now: u.tableStatsNow, table: JSON.stringify(u.table), flame: JSON.stringify(u.flame) };
    const newer = await until(async () => (await ui()).serverStatsNow > held.now + 1.5e9, 20000, 100);
    u = await ui();
    check(newer && u.tableStatsNow === held.now && JSON.stringify(u.table) === held.table && JSON.stringify(u.flame) === held.flame,
      'paused, the table and the flame graph hold still while STATS keep coming',
      { newer, shown: u.tableStatsNow, held: held.now, server: u.serverStatsNow });

    /* ---- a range on the ruler: the table, exactly ---- */
    await page.evaluate((t1) => {
      const tl = window.__recorder.timeline;
      tl.span = 2.4e9;
      tl.t1 = t1;
      tl.moved();
    }, base + 3.3e9);
    await sleep(100);
    const box = await page.locator('#tl-canvas').boundingBox();
    s = await state();
    const xOf = (t) => box.x + 184 + ((t - s.t0) * (box.width - 184)) / (s.t1 - s.t0);
    const drag = async (ta, tb, y) => {
      await page.mouse.move(xOf(ta), y);
      await page.mouse.down();
      await page.mouse.move(xOf(tb), y, { steps: 6 });
      await page.mouse.up();
      await sleep(100);
    };
    await drag(base + 1.2e9, base + 2.8e9, box.y + 12);
    await until(async () => { u = await ui(); return u.range !== null && u.tableWindow === 'range'; }, 5000, 50);
    check(u.range !== null && u.tableWindow === 'range', 'dragging on the ruler selects a range; the table shows it', { range: u.range, w: u.tableWindow });
    const { a, b } = u.range || { a: 0, b: 0 };
    check(!nearBurst(base, a, b) && b - a > 1e9, 'the range lies between bursts', { a: a - base, b: b - base });
    const exp = expected(base, a, b);
    check(u.cover && !u.cover.partial && /selected range/.test(u.tableSub), 'a range without losses is not partial', { cover: u.cover, sub: u.tableSub });
    for (const n of ['req', 'parse', 'respond']) {
      const got = u.table.find((r) => r.name === n), want = exp.rows[n];
      const keys = ['calls', 'total', 'self', 'min', 'max', 'p50', 'p95', 'p99'];
      const bad = got ? keys.filter((k) => got[k] !== want[k]) : keys;
      if (got && !close(got.avg, want.avg)) bad.push('avg');
      if (got && !close(got.totalFrac, want.totalFrac)) bad.push('totalFrac');
      check(want.calls > 100 && bad.length === 0, `the range's ${n}: calls, total, self, min, avg, max, percentiles and total% exact`,
        { bad, got, want: { ...want, sorted: undefined, ends: undefined } });
    }
    await page.screenshot({ path: path.join(shots, 'interact-range.png') });
    /* One picture per panel, for docs/web.md (docs/web/). */
    await page.locator('.timeline-panel').screenshot({ path: path.join(shots, 'panel-range.png') });
    await page.locator('.bottom .panel').nth(0).screenshot({ path: path.join(shots, 'panel-top.png') });
    await page.locator('.bottom .panel').nth(1).screenshot({ path: path.join(shots, 'panel-flame.png') });

    /* The flame graph: the time inside the range, parse under req. */
    const fr = u.flame.find((f) => f.name === 'req' && f.parent === ''), fp = u.flame.find((f) => f.name === 'parse');
    const flameSub = await shownText(page, '#flame-sub', (t) => /time inside the range/.test(t));
    check(/time inside the range/.test(flameSub), 'the flame graph\'s heading says it shows the range', flameSub);
    check(fr && close(fr.total, exp.inside.req) && fp && fp.parent === 'req' && close(fp.total, exp.inside.parse),
      'the flame graph shows the time inside the range, parse under req', { req: fr, parse: fp, want: exp.inside });

    /* The counter, in the range. */
    const q = u.counters.find((c) => c.name === 'queue');
    const qa = exp.queue.reduce((x, y) => x + y, 0) / exp.queue.length;
    check(q && q.what === 'range' && q.n === exp.queue.length && q.min === Math.min(...exp.queue) && q.max === Math.max(...exp.queue) && close(q.avg, qa),
      'the counter\'s min / avg / max in the range', { got: q, want: { n: exp.queue.length, avg: qa } });
    check(q && /^min \S+ avg \S+ max \S+$/.test(q.text), 'its track says min, avg and max', q && q.text);
    /* Hovering the counter track reads its value out. */
    const tracks = await page.evaluate(() => window.__recorder.timeline.tracks.map((t) => [t.kind, t.y, t.h]));
    const ct = tracks.find((t) => t[0] === 'counter');
    if (ct) {
      await page.mouse.move(xOf((a + b) / 2), box.y + 26 + ct[1] + ct[2] / 2);
      await until(async () => /queue/.test((await page.textContent('#tooltip')) || ''), 3000, 50);
      const tip = (await page.textContent('#tooltip')) || '';
      check(/^queue/.test(tip) && /server\d/.test(tip), 'hovering the counter track reads the value out', tip);
      await page.screenshot({ path: path.join(shots, 'panel-counter.png'), clip: { x: box.x, y: box.y, width: box.width, height: 150 } });
      await page.mouse.move(5, 5);
    } else check(false, 'a counter track is drawn', tracks);

    /* ---- the latency panel of the picked row ---- */
    await page.click('#top-body tr:has-text("req")');
    await page.click('#right-tabs button[data-tab="latency"]');
    /* The panel draws its histogram a frame after its figures: wait for both. */
    u = await until(async () => { const v = await ui(); return v.latency && v.latency.calls > 0 && v.latency.bins && v.tab === 'latency' ? v : null; }, 10000, 100);
    const wr = exp.rows.req;
    const wantPct = { P50: rank(wr.sorted, 0.5), P90: rank(wr.sorted, 0.9), P99: rank(wr.sorted, 0.99), 'P99.9': rank(wr.sorted, 0.999) };
    check(u && u.picked === 'req' && u.highlighted, 'clicking a row picks the scope and highlights its slices', u && { picked: u.picked, hl: u.highlighted });
    check(u && u.latency.calls === wr.calls && JSON.stringify(u.latency.pct) === JSON.stringify(wantPct) && !u.latency.partial,
      'the latency panel\'s P50, P90, P99 and P99.9 in the range, exact', u && { got: u.latency.pct, want: wantPct, calls: u.latency.calls });
    /* Per second: the calls that ended in it. */
    const bySec = new Map();
    for (const [d, e] of wr.ends) {
      const k = Math.floor(e / 1e9);
      if (!bySec.has(k)) bySec.set(k, []);
      bySec.get(k).push(d);
    }
    const wantSec = [...bySec.keys()].sort((x, y) => x - y).map((k) => {
      const l = bySec.get(k).sort((x, y) => x - y);
      return { sec: k, n: l.length, p: [rank(l, 0.5), rank(l, 0.95), rank(l, 0.99)] };
    });
    check(u && JSON.stringify(u.latency.perSecond) === JSON.stringify(wantSec), 'P50, P95 and P99 per second, exact',
      u && { got: u.latency.perSecond, want: wantSec });
    check(u && u.latency.bins && u.latency.bins.counts.reduce((x, y) => x + y, 0) === wr.calls, 'the histogram holds every call', u && u.latency.bins);
    check(u && /P99\.9/.test(u.latency.figures), 'the figures name P99.9', u && u.latency.figures);
    await page.locator('.bottom .panel').nth(1).screenshot({ path: path.join(shots, 'panel-latency.png') });

    /* ---- a range over a burst: partial, everywhere ---- */
    await drag(base + 2.6e9, base + 3.2e9, box.y + 12);
    /* The panels follow the new range at the page's next frames: wait for them. */
    let marks = [];
    await until(async () => {
      u = await ui();
      marks = await page.$$eval('#top-body tr:not([hidden]) .pmark', (els) => els.map((e) => e.textContent));
      return u.range && u.range.a > base + 2.5e9 && u.cover && u.cover.partial && marks.length > 0 && u.latency && u.latency.partial;
    }, 5000, 50);
    check(u.cover && u.cover.partial && u.cover.lost > 0 && /partial/.test(u.tableSub) && /lost/.test(u.tableSub),
      'a range over lost entries is partial, and says how many were lost', { cover: u.cover, sub: u.tableSub });
    check(marks.length > 0 && marks.every((x) => x === '~'), 'every row of the range is marked ~', marks);
    check(u.latency && u.latency.partial && /~/.test(u.latency.figures) && /partial/.test(u.latency.sub),
      'the latency panel says partial', u.latency && { fig: u.latency.figures, sub: u.latency.sub });
    await page.screenshot({ path: path.join(shots, 'interact-partial.png') });

    /* ---- Esc: the range, then the pick ---- */
    await page.keyboard.press('Escape');
    /* The table goes back to the server's window at the page's next frame
     * (app.js), not within the key press: wait for it. */
    await until(async () => { const v = await ui(); return v.range === null && v.tableWindow === 1; }, 10000, 50);
    u = await ui();
    check(u.range === null && u.tableWindow === 1 && u.picked === 'req', 'Esc clears the range: the table shows the server\'s window again', { range: u.range, w: u.tableWindow });
    await page.keyboard.press('Escape');
    u = await ui();
    check(u.picked === null && !u.highlighted, 'a second Esc drops the pick', { picked: u.picked });

    /* ---- search ---- */
    await page.fill('#search', 'RE');
    u = await until(async () => { const v = await ui(); return v.query === 're' && v.found > 0 ? v : null; }, 5000, 50);
    const names = u ? u.table.map((r) => r.name).sort() : [];
    check(u && JSON.stringify(names) === '["req","respond"]', 'searching "RE" filters the table to req and respond', names);
    check(u && u.highlighted && u.searchCount === `${u.found} found`, 'the matches are highlighted and counted', u && { hl: u.highlighted, count: u.searchCount });
    await page.click('#search-next');
    const first = (await ui()).current;
    s = await state();
    check(first && /^re/.test(first.name) && first.s >= s.t0 && first.e <= s.t1 && !s.live, 'next jumps to a match and shows it', { first, t0: s.t0, t1: s.t1 });
    await page.press('#search', 'Enter');
    const second = (await ui()).current;
    check(second && first && (second.s > first.s || (second.s === first.s && second.depth > first.depth)) && second.index === first.index + 1,
      'Enter goes to the next occurrence', { first, second });
    await page.press('#search', 'Shift+Enter');
    const back = (await ui()).current;
    check(back && first && back.s === first.s && back.name === first.name && back.index === first.index, 'shift+Enter goes back', { back, first });
    await page.click('#search-prev');
    const before = (await ui()).current;
    check(before && first && before.s < first.s && before.index === first.index - 1, 'the previous button goes further back', { before, first });
    await page.screenshot({ path: path.join(shots, 'interact-search.png') });
    await page.locator('.timeline-panel').screenshot({ path: path.join(shots, 'panel-search.png') });
    await page.fill('#search', '');
    u = await ui();
    check(!u.highlighted && u.table.length >= 4, 'an empty search shows everything again', u.table.map((r) => r.name));

    /* ---- keys ---- */
    await page.click('#tl-empty', { force: true }).catch(() => {});
    await page.evaluate(() => document.activeElement && document.activeElement.blur());
    await page.keyboard.press('?');
    check((await ui()).help, '? shows the keys');
    await page.locator('#keys-help').screenshot({ path: path.join(shots, 'panel-keys.png') });
    await page.keyboard.press('Escape');
    check(!(await ui()).help, 'Esc hides them');
    const k0 = await state();
    await page.keyboard.press('Shift+W');
    const k1 = await state();
    await page.keyboard.press('w');
    const k2 = await state();
    check(close(k1.span, k0.span * 0.8) && close(k2.span, k1.span * 0.8), 'W and w both zoom in', [k0.span, k1.span, k2.span]);
    await page.keyboard.press('Shift+S');
    await page.keyboard.press('s');
    const k3 = await state();
    check(close(k3.span, k0.span, 1e-6), 'S and s both zoom out', [k0.span, k3.span]);
    await page.keyboard.press('Shift+A');
    const k4 = await state();
    await page.keyboard.press('d');
    const k5 = await state();
    await page.keyboard.press('Shift+D');
    const k6 = await state();
    check(k4.t1 < k3.t1 && k5.t1 > k4.t1 && k6.t1 > k5.t1, 'A pans back, d and D forward', [k3.t1, k4.t1, k5.t1, k6.t1]);

    /* ---- live again: the table follows the server's window ---- */
    await page.click('#btn-pause');
    const moved = await until(async () => { const v = await ui(); return v.tableStatsNow > held.now + 1e9; }, 10000, 100);
    check(moved, 'back to live, the table follows again');
    check(errors.length === 0, 'no errors in the page', errors.slice(0, 5));
  } finally {
    await closeBrowser(browser);
    await stopClean(srv);
    await stop(writer);
    fs.rmSync(`/dev/shm/recorder.${name}`, { force: true });
  }
});
