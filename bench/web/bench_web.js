/* bench_web.js -- recorder-web under load: the events per second that
 * reach the page in chromium and the page's frame rate while they stream.
 *
 *   node bench/web/bench_web.js [--threads N] [--rate EV_PER_S_PER_THREAD]
 *        [--seconds S] [--warmup S] [--span-ms MS] [--search TEXT] [--pick NAME]
 *
 * Needs RECORDER_WEB and WEB_TARGET (meson passes them: `meson test -C
 * BUILD --benchmark --suite web -v`), playwright-core in tests/node and
 * /usr/bin/chromium.  Reports, over the measured seconds: events decoded
 * by the page per second, requestAnimationFrame callbacks per second and
 * timeline redraws per second (counted in the page), events lost by the
 * program's rings and thinned by the server (both must be reported, never
 * hidden), and the CPU time recorder-web used.  Prints one JSON line too.
 * --search types TEXT in the page's search box (its matches highlighted,
 * the table filtered); --pick clicks the top table's row NAME (its slices
 * highlighted, its latency panel shown and recomputed live; with --search,
 * a row the search keeps): the cost of
 * the interaction features while the data streams (the page also counts
 * the time it spends in them, interact_ms_per_s, beside its time painting
 * the timeline, draw_ms_per_s: a ratio that the machine's load moves
 * less than the frame rate). */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { startTarget, startServer, stop, sleep, until, cpuSeconds } = require('../../tests/web/harness');

function arg(name, def) {
  const i = process.argv.indexOf('--' + name);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}
const threads = arg('threads', 4);
const rate = arg('rate', 300000);
const seconds = arg('seconds', 10);
const warmup = arg('warmup', 4);
const spanMs = arg('span-ms', 10000);
function sarg(name) {
  const i = process.argv.indexOf('--' + name);
  return i > 0 ? process.argv[i + 1] : null;
}
const searchText = sarg('search'), pickName = sarg('pick');

let chromium;
try {
  ({ chromium } = require(path.join(__dirname, '../../tests/node/node_modules/playwright-core')));
} catch (e) {
  console.log('SKIP: playwright-core is not installed (run `npm install` in tests/node)');
  process.exit(77);
}


(async () => {
  const target = await startTarget(['--threads', String(threads), '--rate', String(rate), '--work-ns', '0']);
  const srv = await startServer([String(target.pid), '--port', '0']);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'recorder-web-bench-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1440, height: 900 },
  });
  const page = ctx.pages()[0] || (await ctx.newPage());
  try {
    await page.goto(srv.url);
    await until(() => page.evaluate(() => window.__recorder.state().events > 0), 30000, 100);
    await page.evaluate((ms) => { window.__recorder.timeline.span = ms * 1e6; }, spanMs);
    if (searchText) await page.fill('#search', searchText);
    if (pickName) {
      await until(() => page.evaluate((n) => [...document.querySelectorAll('#top-body td.l')].some((td) => td.textContent === n), pickName), 30000, 100);
      /* The rows move as the numbers change: click it where it is now. */
      await page.evaluate((n) => [...document.querySelectorAll('#top-body tr')].find((tr) => tr.cells_[0].tx.textContent === n).click(), pickName);
      await page.click('#right-tabs button[data-tab="latency"]');
    }
    await sleep(warmup * 1000);
    const snap = () => page.evaluate(() => {
      const r = window.__recorder, s = r.state();
      return { t: performance.now(), events: s.events, raf: r.perf.rafCount, draws: r.timeline.draws || 0,
        drawMs: r.perf.drawTotalMs || 0, interactMs: r.perf.interactMs || 0,
        lost: s.lost, thinned: s.thinned, offered: s.offered, read: s.serverEvents, queued: s.queued };
    });
    const a = await snap();
    const cpu0 = cpuSeconds(srv.proc.pid);
    await sleep(seconds * 1000);
    const b = await snap();
    const cpu1 = cpuSeconds(srv.proc.pid);
    const dt = (b.t - a.t) / 1000;
    const res = {
      threads, rate_per_thread: rate, offered_rate: threads * rate, seconds: +dt.toFixed(2),
      read_per_s: Math.round((b.read - a.read) / dt),
      events_per_s: Math.round((b.events - a.events) / dt),
      queued_bytes_end: b.queued,
      raf_per_s: +((b.raf - a.raf) / dt).toFixed(1),
      draws_per_s: +((b.draws - a.draws) / dt).toFixed(1),
      lost: b.lost - a.lost, thinned: b.thinned - a.thinned,
      server_cpu: +((cpu1 - cpu0) / dt).toFixed(3),
      /* The page's time painting the timeline, and in the interaction
       * features (highlight lookups are inside the paint), per second. */
      draw_ms_per_s: +((b.drawMs - a.drawMs) / dt).toFixed(1),
      interact_ms_per_s: +((b.interactMs - a.interactMs) / dt).toFixed(2),
      view_ms: spanMs,
      search: searchText, pick: pickName,
    };
    await page.screenshot({ path: path.join(os.tmpdir(), 'recorder-web-bench.png') });
    console.log(`events delivered to the page: ${(res.events_per_s / 1e6).toFixed(2)} M/s; read by recorder-web: ` +
      `${(res.read_per_s / 1e6).toFixed(2)} M/s (the program aims at ${(res.offered_rate / 1e6).toFixed(2)} M/s over ${threads} threads)`);
    console.log(`page: ${res.raf_per_s} requestAnimationFrame/s, ${res.draws_per_s} timeline redraws/s (view ${spanMs} ms)`);
    console.log(`lost in the rings: ${res.lost} entries; thinned for the page: ${res.thinned} events; ` +
      `queued for the page at the end: ${res.queued_bytes_end} bytes`);
    console.log(`recorder-web CPU: ${(100 * res.server_cpu).toFixed(0)}% of a core`);
    console.log(`page: ${res.draw_ms_per_s} ms/s painting the timeline, ${res.interact_ms_per_s} ms/s in the interaction features`);
    console.log(JSON.stringify(res));
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
    await stop(srv.proc);
    await stop(target.proc);
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
