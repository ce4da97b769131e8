/* bench_history.js -- recorder-web's history (docs/performance/web.md,
 * "History"):
 *
 *   node bench/web/bench_history.js slices [--slices N] [--seconds S]
 *     The page with N (10 M) slices of detail: its frame rate while the
 *     view pans and zooms, from the whole run (every slice in view) down
 *     to 100 ms.  The slices are put straight into the page's store (16
 *     lanes, 4 nested levels, 30 minutes), so what is measured is the
 *     timeline, not the network; the server only serves the page.
 *
 *   node bench/web/bench_history.js capture FILE.rec
 *     recorder-web on a capture file (100 M events): the time from its
 *     start to the page's first frame showing the run (HELLO, STATUS and
 *     a summary drawn), to the file fully read, and recorder-web's peak
 *     memory (VmHWM) against its bound.
 *
 *   node bench/web/bench_history.js server FILE.rec
 *     The server's part alone: a page without a browser (tests/web/peer.js)
 *     connects as soon as the URL is printed; the time to its first HELLO,
 *     STATUS and summary (LOD), and recorder-web's CPU time by then.
 *
 * Needs RECORDER_WEB (and for `slices` a capture to serve: WEB_TARGET and
 * RECORDER_CLI make one), playwright-core in tests/node, /usr/bin/chromium.
 * Prints one JSON line per measurement. */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { startServer, run, stop, until, need, cpuSeconds } = require('../../tests/web/harness');
const { launch } = require('../../tests/web/chromium');   /* exits 77 without playwright-core or chromium */

function arg(name, def) {
  const i = process.argv.indexOf('--' + name);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}

async function browser() {
  const { ctx, profile } = await launch();
  return { ctx, profile, page: ctx.pages()[0] || (await ctx.newPage()) };
}

function status(pid, key) {
  const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp('^' + key + ':\\s+(\\d+)', 'm'));
  return m ? Number(m[1]) : 0;
}

/* ---- 10 M slices: pan and zoom ---- */
async function slices() {
  const n = arg('slices', 10e6), seconds = arg('seconds', 4);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recorder-web-bench-'));
  const rec = path.join(dir, 'small.rec');
  await run(need('RECORDER_CLI'), ['capture', '-o', rec, '-q', '--', need('WEB_TARGET'), '--threads', '1', '--seconds', '0.2'], 60000);
  const srv = await startServer([rec, '--port', '0']);
  const { ctx, profile, page } = await browser();
  try {
    await page.goto(srv.url);
    await until(() => page.evaluate(() => { const s = window.__recorder.state(); return s.connected && !s.loading && s.events > 0; }), 30000, 100);
    const made = await page.evaluate((n) => {
      const r = window.__recorder, st = r.store, tl = r.timeline;
      st.reset();
      st.strings(1, ['step', 'layer', 'attention', 'matmul']);
      const lanes = 16, depth = 4, perRow = Math.round(n / (lanes * depth)), run = 1800e9, every = run / perRow;
      const THREADS = { full: true, retiredTotal: 0, foldedTotal: 0, retired: [], lanes: [] };
      for (let l = 1; l <= lanes; l++) THREADS.lanes.push({ id: l, slot: l, gen: 0, tid: 1000 + l, alive: true, name: 'worker-' + l });
      st.threads(THREADS);
      for (let l = 1; l <= lanes; l++) {
        const L = st.lanes.get(l);
        for (let d = 0; d < depth; d++) {
          const row = L.row(d);
          for (let i = 0; i < perRow; i++) {
            const s = i * every + d * every * 0.1 + (l * 7919 % 1000) * 1e3, e = s + every * (0.7 - d * 0.15);
            row.push(s, e, 1 + d, 0);
          }
        }
        L.maxDepth = depth;
      }
      st.items = lanes * depth * perRow;
      st.maxTs = st.now = run;
      st.firstBase = 0;
      st.statusMsg = Object.assign({}, st.statusMsg, { alive: false });
      st.layoutVersion++;
      st.version++;
      tl.setLive(false);
      return st.items;
    }, n);
    const out = [];
    /* Each regime: every animation frame moves the view (pan, or zoom in
     * and out about the middle), so every frame is a full repaint. */
    for (const [label, span] of [['whole run (30 min)', 1850e9], ['1 minute', 60e9], ['100 ms', 100e6]]) {
      const res = await page.evaluate(([span, ms]) => new Promise((resolve) => {
        const r = window.__recorder, tl = r.timeline;
        tl.span = span;
        tl.t1 = 900e9 + span / 2;
        tl.moved();
        const d0 = tl.draws || 0, t0 = performance.now();
        let raf = 0;
        const step = () => {
          raf++;
          if (raf % 2) tl.pan(span * 0.01);
          else tl.zoom(raf % 4 === 0 ? 1.02 : 1 / 1.02);
          if (performance.now() - t0 < ms) requestAnimationFrame(step);
          else {
            const dt = (performance.now() - t0) / 1000;
            resolve({ draws_per_s: +(((tl.draws || 0) - d0) / dt).toFixed(1), raf_per_s: +(raf / dt).toFixed(1), draw_ms: +r.perf.drawMs.toFixed(1) });
          }
        };
        requestAnimationFrame(step);
      }), [span, seconds * 1000]);
      const line = Object.assign({ bench: 'pan-zoom', slices: made, view: label }, res);
      out.push(line);
      console.log(`${made} slices, view ${label}: ${res.draws_per_s} full redraws/s (${res.raf_per_s} animation frames/s, last paint ${res.draw_ms} ms)`);
      console.log(JSON.stringify(line));
    }
    await page.screenshot({ path: path.join(os.tmpdir(), 'recorder-web-bench-history.png') });
    return out;
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
    await stop(srv.proc);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/* ---- a large capture: first frame, fully read, memory ---- */
async function capture(file) {
  const { ctx, profile, page } = await browser();
  const t0 = Date.now();
  const srv = await startServer([file, '--port', '0']);
  const tUrl = Date.now() - t0, cpuUrl = cpuSeconds(srv.proc.pid);
  let peak = 0;
  const poll = setInterval(() => { try { peak = Math.max(peak, status(srv.proc.pid, 'VmHWM')); } catch (e) { /* gone */ } }, 100);
  try {
    await page.goto(srv.url);
    /* The first frame that shows the run: a summary drawn in view. */
    await until(() => page.evaluate(() => {
      const r = window.__recorder, s = r.state();
      return s.connected && r.store.lodMsg !== null && (r.timeline.draws || 0) > 0 && r.timeline.drawnVersion === r.store.version;
    }), 120000, 20);
    const tFirst = Date.now() - t0, cpuFirst = cpuSeconds(srv.proc.pid);
    const first = await page.evaluate(() => ({ events: window.__recorder.state().serverEvents, loading: window.__recorder.state().loading }));
    await until(() => page.evaluate(() => { const s = window.__recorder.state(); return !s.loading && s.events > 0; }), 600000, 100);
    const tLoaded = Date.now() - t0, cpuLoaded = cpuSeconds(srv.proc.pid);
    const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    const s = await page.evaluate(() => window.__recorder.state());
    peak = Math.max(peak, status(srv.proc.pid, 'VmHWM'));
    const line = { bench: 'capture', file: path.basename(file), bytes: fs.statSync(file).size, events: s.serverEvents,
      url_ms: tUrl, first_frame_ms: tFirst, events_at_first_frame: first.events, loading_at_first_frame: first.loading,
      loaded_ms: tLoaded, server_vmhwm_kb: peak, page_events: s.events,
      server_cpu_s_at_url: cpuUrl, server_cpu_s_at_first_frame: cpuFirst, server_cpu_s_loaded: cpuLoaded, loadavg: Number(load) };
    console.log(`${s.serverEvents} events (${(line.bytes / 1e6).toFixed(0)} MB): URL after ${tUrl} ms, first frame after ` +
      `${tFirst} ms (${first.events} events read by then), whole file read after ${tLoaded} ms; ` +
      `recorder-web peak memory ${(peak / 1024).toFixed(0)} MB; its CPU time by the URL ${cpuUrl} s, by the first frame ` +
      `${cpuFirst} s, by the end ${cpuLoaded} s (load average ${load} on ${os.cpus().length} cores)`);
    console.log(JSON.stringify(line));
    await page.screenshot({ path: path.join(os.tmpdir(), 'recorder-web-bench-capture.png') });
  } finally {
    clearInterval(poll);
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
    await stop(srv.proc);
  }
}

async function server(file) {
  const { Peer } = require('../../tests/web/peer');
  const t0 = Date.now();
  const srv = await startServer([file, '--port', '0']);
  const tUrl = Date.now() - t0, cpuUrl = cpuSeconds(srv.proc.pid);
  const p = await Peer.open(srv.port, srv.token);
  try {
    await until(() => p.helloMsg && p.statusMsg && p.lodMsg, 120000, 5);
    const tFirst = Date.now() - t0, cpuFirst = cpuSeconds(srv.proc.pid);
    const load = Number(fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
    const line = { bench: 'capture-server', file: path.basename(file), url_ms: tUrl, first_summary_ms: tFirst,
      server_cpu_s_at_url: cpuUrl, server_cpu_s_at_first_summary: cpuFirst, events_by_then: p.statusMsg.events, loadavg: load };
    console.log(`URL after ${tUrl} ms (recorder-web CPU ${cpuUrl} s), HELLO + STATUS + summary after ${tFirst} ms ` +
      `(CPU ${cpuFirst} s, ${p.statusMsg.events} events read), load average ${load}`);
    console.log(JSON.stringify(line));
  } finally {
    p.close();
    await stop(srv.proc);
  }
}

(async () => {
  const mode = process.argv[2];
  if (mode === 'slices') await slices();
  else if (mode === 'server' && process.argv[3]) await server(process.argv[3]);
  else if (mode === 'capture' && process.argv[3]) await capture(process.argv[3]);
  else {
    console.error('usage: bench_history.js slices [--slices N] [--seconds S] | capture FILE.rec | server FILE.rec');
    process.exit(2);
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
