/* bench_fileview.js -- a capture file explored anywhere (docs/web.md,
 * "Saved traces"; docs/performance/web.md, "Windows of a capture file"):
 * how long after a zoom into a 100 ms window of a large capture its
 * slices are there.  Target (issue 20): within 1 s for any 100 ms window
 * of a 100 M-event capture.
 *
 *   node bench/web/bench_fileview.js server FILE.rec [--windows N]
 *     A page without a browser (tests/web/peer.js): once the file is read,
 *     N (20) windows of 100 ms at random places, each asked as the page
 *     asks it (page/js/fileview.js: with half a view of margin each side,
 *     200 ms, if the summary says that fits half an answer, else the 100 ms);
 *     the time from the question to the decoded answer, its events and
 *     whether it was cut.
 *
 *   node bench/web/bench_fileview.js page FILE.rec [--windows N]
 *     The page in headless chromium: the view set to a 100 ms window at a
 *     random place, the time until a slice of it is drawn (the page asks,
 *     recorder-web reads the window, the page decodes and finds a slice
 *     in view), N (10) times.
 *
 * --from F --to F: the places only between those fractions of the run
 * (its busy part, say).
 *
 * Needs RECORDER_WEB; `page` also playwright-core in tests/node and
 * /usr/bin/chromium.  Prints one JSON line per window and a summary line.
 * The capture: see docs/performance/web.md. */
'use strict';
const path = require('path');
const { startServer, stop, until, need, cpuSeconds } = require('../../tests/web/harness');

function arg(name, def) {
  const i = process.argv.indexOf('--' + name);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}

/* A fixed sequence of places: the same windows run after run. */
function places(n, seed = 12345) {
  let x = seed;
  const out = [], lo = arg('from', 0), hi = arg('to', 1);
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(lo + (hi - lo) * (x / 2147483648));
  }
  return out;
}

function summary(what, v) {
  v.sort((a, b) => a - b);
  const q = (p) => v[Math.min(v.length - 1, Math.floor(p * v.length))];
  console.log(JSON.stringify({ what, n: v.length, min_ms: +v[0].toFixed(1), median_ms: +q(0.5).toFixed(1),
    p90_ms: +q(0.9).toFixed(1), max_ms: +v[v.length - 1].toFixed(1) }));
}

const { lodEventsIn: lodEvents } = require('../../viewer-web/page/js/lodcount');

async function server(file) {
  const { Peer } = require('../../tests/web/peer');
  const t0 = Date.now();
  const srv = await startServer([file, '--port', '0']);
  const p = await Peer.open(srv.port, srv.token);
  await until(() => p.statusMsg && !p.statusMsg.loading && p.lodMsg, 600000, 50);
  const start = p.lodMsg.t0, end = p.statusMsg.now;
  console.log(JSON.stringify({ what: 'file read', s: (Date.now() - t0) / 1e3, events: p.statusMsg.events,
    run_s: (end - start) / 1e9, cpu_s: cpuSeconds(srv.proc.pid) }));
  const times = [];
  let id = 0;
  for (const f of places(arg('windows', 20))) {
    const a = start + f * (end - start - 100e6), b = a + 100e6;
    const pad = lodEvents(p.lodMsg, a - 50e6, b + 50e6) * 5 <= p.helloMsg.rangeBytes / 2 ? 50e6 : 0;
    const t = process.hrtime.bigint();
    const r = await p.range(++id, a - pad, b + pad, 60000);
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    times.push(ms);
    console.log(JSON.stringify({ window_s: +((a - start) / 1e9).toFixed(3), asked_ms: 100 + 2 * pad / 1e6, ms: +ms.toFixed(1), events: r ? r.events : null,
      cut: r ? r.cut : null, covered_ms: r ? +((r.to - r.from) / 1e6).toFixed(1) : null }));
  }
  summary('question to answer, 100 ms windows', times);
  p.close();
  await stop(srv.proc);
}

async function page(file) {
  const { launch } = require('../../tests/web/chromium');
  const { ctx, profile } = await launch();
  const pg = ctx.pages()[0] || (await ctx.newPage());
  const srv = await startServer([file, '--port', '0']);
  try {
    await pg.goto(srv.url);
    await until(() => pg.evaluate(() => { const s = window.__recorder.state(); return s.file && !s.loading && s.lod && s.topRows.length > 0; }), 600000, 200);
    const times = [];
    for (const f of places(arg('windows', 10), 777)) {
      const t = await pg.evaluate(async (f) => {
        const r = window.__recorder, tl = r.timeline, st = r.store, m = st.lodMsg, end = st.liveNow();
        tl.setLive(false);
        tl.span = 100e6;
        tl.t1 = m.t0 + f * (end - m.t0 - 100e6) + 100e6;
        tl.moved();
        const t0 = performance.now();
        /* The window's detail is in (the answer covers the view), then drawn. */
        for (;;) {
          if (st.detailStart <= tl.t0 + 1 && st.detailEnd >= tl.t1 - 1) break;
          await new Promise((res) => setTimeout(res, 5));
          if (performance.now() - t0 > 30000)
            return { ms: -1, detail: [st.detailStart, st.detailEnd], view: [tl.t0, tl.t1], asked: window.__recorder.fileView && window.__recorder.fileView.asked };
        }
        await new Promise((res) => requestAnimationFrame(res));
        const ms = performance.now() - t0;
        let slices = 0;
        for (const L of st.laneOrder) for (const row of L.rows) for (let i = row.lowerBound(1, tl.t0); i < row.n && row.s[i] < tl.t1; i++) slices++;
        return { ms, slices };
      }, f);
      times.push(t.ms);
      console.log(JSON.stringify(Object.assign({ place: +f.toFixed(3), zoom_to_drawn_ms: +t.ms.toFixed(1) }, t)));
    }
    summary('zoom to the window\'s slices drawn, 100 ms windows, in chromium', times.filter((t) => t >= 0));
  } finally {
    await ctx.close();
    require('fs').rmSync(profile, { recursive: true, force: true });
    await stop(srv.proc);
  }
}

const [mode, file] = process.argv.slice(2);
if (!file || !['server', 'page'].includes(mode)) {
  console.error('usage: bench_fileview.js server|page FILE.rec [--windows N]');
  process.exit(2);
}
need('RECORDER_WEB');
(mode === 'server' ? server : page)(path.resolve(file)).catch((e) => { console.error(e); process.exit(1); });
