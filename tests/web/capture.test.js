/* capture.test.js -- a capture file through recorder-web, and the run's
 * summary where detail was dropped (suite browser; docs/web.md "Saved
 * traces" and "History").
 *
 * web_target is captured to a file (`recorder capture -o FILE -- ...`);
 * `recorder dump --format json` of the same file, parsed here, is the
 * independent count.  recorder-web FILE serves it with a small
 * --client-queue, so the detail it keeps (half the queue) is only the
 * end of the run:
 *   - the header says it is a capture file, not a live program;
 *   - the events it read equal the JSON's (B, E, i, C and flow events),
 *     and the whole-run top table's calls equal the JSON's slices by name;
 *   - the page opens on the whole run: the region before the kept detail
 *     is marked summary-only and shows every worker's summary bars;
 *   - counters are drawn over the whole file: there the counter track
 *     shows the summary's values (its lowest and highest over the run
 *     equal the JSON's);
 *   - zoomed into the kept end, slices; zoomed into the first second,
 *     where the detail was dropped, slices again: recorder-web reads that
 *     window of the file on demand (RANGE, through its time index), and
 *     the summary is gone from the view;
 *   - a file gets file controls (whole file, start, end, where the view
 *     is), not Pause, "following" and events/s.
 * Screenshots go to WEB_SCREENSHOTS. */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { startServer, run, stop, check, main, until, need, shownText } = require('./harness');
const { launchPage } = require('./chromium');   /* exits 77 without a browser */

const shots = need('WEB_SCREENSHOTS');
fs.mkdirSync(shots, { recursive: true });

/* What the JSON holds, counted by phase and by slice name. */
function jsonCounts(file) {
  const d = JSON.parse(fs.readFileSync(file, 'utf8'));
  const ev = Array.isArray(d) ? d : d.traceEvents;
  const ph = {}, slices = new Map();
  for (const e of ev) {
    ph[e.ph] = (ph[e.ph] || 0) + 1;
    if (e.ph === 'B') slices.set(e.name, (slices.get(e.name) || 0) + 1);
    /* An X is a flow event (a zero-length "flow" slice with a bind_id, docs/perfetto.md). */
    if (e.ph === 'X' && e.bind_id === undefined) throw new Error('complete events: count them as two');
  }
  const n = (k) => ph[k] || 0;
  const qd = ev.filter((e) => e.ph === 'C' && e.name === 'queue_depth').map((e) => Object.values(e.args)[0]);
  const counter = { n: qd.length, min: Math.min(...qd), max: Math.max(...qd) };
  return { events: n('B') + n('E') + n('i') + n('I') + n('C') + n('X'), ph, slices, counter };
}

const FILE_POS = /^t \d+\.\d{3} s – \d+\.\d{3} s of \d+\.\d{3} s$/;

main(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhist-capture-'));
  const rec = path.join(dir, 'run.rec'), json = path.join(dir, 'run.json');
  const cli = need('RECORDER_CLI');
  const cap = await run(cli, ['capture', '-o', rec, '-q', '--', need('WEB_TARGET'), '--threads', '3', '--rate', '20000',
    '--seconds', '3'], 60000);
  check(cap.code === 0 && fs.existsSync(rec), 'recorder capture writes the file', cap.stderr);
  const dump = await run(cli, ['dump', rec, '--format', 'json', '-o', json], 60000);
  check(dump.code === 0, 'recorder dump reads it', dump.stderr);
  const want = jsonCounts(json);

  const srv = await startServer([rec, '--port', '0', '--client-queue', '256']);
  await until(() => /serving the capture/.test(srv.stderr.text), 5000);
  check(/serving the capture/.test(srv.stderr.text), 'recorder-web says it serves a capture', srv.stderr.text);
  const { ctx, profile, page, errors } = await launchPage();
  try {
    await page.goto(srv.url);
    const state = () => page.evaluate(() => window.__recorder.state());
    let s;
    const up = await until(async () => {
      s = await state();
      return s.connected && s.file && !s.loading && s.lod && s.lod.region && s.topRows.length > 0;
    }, 60000, 200);
    check(up, 'the page opens the file', { conn: s && s.conn, file: s && s.file, lod: s && s.lod });
    /* The widest 'step' slice the page holds between a and b (ns). */
    await page.evaluate(() => {
      window.__widestStep = (a, b) => {
        const tl = window.__recorder.timeline, st = window.__recorder.store;
        let best = null;
        for (const t of tl.tracks) {
          if (t.kind !== 'lane') continue;
          for (let d = 0; d < t.rows; d++) {
            const row = t.L.rows[d];
            if (!row) continue;
            for (let i = 0; i < row.n; i++) {
              if (row.s[i] < a || row.e[i] > b || st.name(row.nm[i]) !== 'step') continue;
              if (!best || row.e[i] - row.s[i] > best.e - best.s) best = { s: row.s[i], e: row.e[i] };
            }
          }
        }
        return best;
      };
    });

    /* ---- the header: a file, not a live program ---- */
    const conn = await shownText(page, '#conn', (t) => t === 'capture file');
    const pid = await shownText(page, '#proc-pid', (t) => t.includes('file ' + rec));
    check(conn === 'capture file', 'the header says capture file', conn);
    check(pid.includes('file ' + rec), 'the header names the file', pid);
    /* File controls, not the live ones. */
    const vis = async (sel) => page.isVisible(sel);
    const ctl = { file: await vis('#file-ctl'), pause: await vis('#btn-pause'), mode: await vis('#view-state'),
      rate: await vis('#m-rate-box'), pos: await shownText(page, '#file-pos', (t) => FILE_POS.test(t)) };
    check(ctl.file && !ctl.pause && !ctl.mode && !ctl.rate, 'a file shows file controls, not Pause, "following" or events/s', ctl);
    check(FILE_POS.test(ctl.pos), 'the file controls say where the view is in the file', ctl.pos);
    await page.click('#btn-file-start');
    const atStart = await state(), fileStart = await page.evaluate(() => window.__recorder.store.lodMsg.t0);
    check(!atStart.live && Math.abs(atStart.t0 - fileStart) < 1e6, '"Start" moves the view to the file\'s start',
      { t0: atStart.t0, fileStart });
    await page.click('#btn-file-fit');

    /* ---- counts: the file's, as recorder dump's JSON has them ---- */
    check(s.serverEvents === want.events, 'events read equal the JSON\'s', { page: s.serverEvents, json: want.events, ph: want.ph });
    await page.click('#window button[data-w="2"]');
    await until(async () => (s = await state()).tableFrom.length > 0 && s.cover && s.cover.decoded > 0, 10000, 100);
    s = await state();
    const bad = [];
    for (const row of s.top) {
      const n = want.slices.get(row.name);
      if (n !== undefined && n !== row.calls) bad.push({ name: row.name, page: row.calls, json: n });
    }
    check(s.top.length >= 5 && bad.length === 0, 'the whole run\'s calls equal the JSON\'s slices by name', { bad, rows: s.top.length });

    /* ---- the whole run: summary before the kept detail, marked ---- */
    await page.evaluate(() => window.__recorder.fitRun());
    await page.waitForTimeout(300);
    s = await state();
    const lod = s.lod;
    check(lod.region && lod.region.x1 - lod.region.x0 > 200, 'zoomed out, most of the run is summary only (detail dropped)', lod);
    check(lod.lanesWithBars >= 3, 'every worker shows its summary there', lod);
    check(s.detailStart > s.t0 && s.detailStart < s.t1 && s.events > 0, 'the kept detail is in view too', { d: s.detailStart, t0: s.t0, t1: s.t1, events: s.events });
    const hatched = await page.evaluate((x) => window.__recorder.lodHatchedAt(x), (lod.region.x0 + lod.region.x1) / 2);
    check(hatched >= 3, 'the dropped-detail region is hatched in every lane', hatched);

    /* ---- counters over the whole file: drawn where the page has no
     * detail (the region just checked, most of the run) ---- */
    const ctr = () => page.evaluate((g) => {
      const st = window.__recorder.store, m = st.lodMsg;
      let C = null;
      for (const [name, c] of m.counters || []) if (st.name(name) === 'queue_depth') C = c;
      const cols = [];
      for (let f = 0.1; f < 0.95; f += 0.2) cols.push((window.__recorder.counterPixelsAt(g.x0 + f * (g.x1 - g.x0)) || {}).queue_depth || 0);
      if (!C) return { cols };
      let min = Infinity, max = -Infinity, spread = 0;
      for (let i = 0; i < C.count; i++) {
        if (C.min[i] < min) min = C.min[i];
        if (C.max[i] > max) max = C.max[i];
        spread += C.max[i] > C.min[i];
      }
      return { cols, min, max, spread, from: (g.from - m.t0) / 1e9, to: (g.to - m.t0) / 1e9 };
    }, lod.region);
    let cv = null;
    await until(async () => (cv = await ctr()).cols.every((n) => n > 0), 5000, 100);
    check(want.counter.n > 100 && cv.cols.every((n) => n > 0) && cv.from < 1,
      'zoomed out, the counter track is drawn where the page has no detail, from the first second on', { cv, json: want.counter });
    check(cv.min === want.counter.min && cv.max === want.counter.max && cv.spread > 0,
      'the summary\'s counter values span the file\'s (lowest and highest equal the JSON\'s)', { cv, json: want.counter });
    await page.screenshot({ path: path.join(shots, 'capture-counters.png') });
    const pt = lod.point;
    if (pt) await page.mouse.move(pt.x, pt.y);
    const tip = pt ? await until(async () => /summary only/.test(await page.textContent('#tooltip').catch(() => '')), 3000, 100) : false;
    const tipText = await page.textContent('#tooltip').catch(() => '');
    check(tip && /busy/.test(tipText) && /events/.test(tipText), 'hovering there says it is the summary, how busy, how many events', { pt, tipText });
    await page.screenshot({ path: path.join(shots, 'capture-whole-run.png') });
    await page.mouse.move(5, 5);

    /* ---- zoomed into the kept end: slices ---- */
    /* First 100 ms in the middle of the kept end (the program was still
     * working there; its last few ms, as it shut down, may hold none),
     * then 4 ms around the widest step laid out in them: the first 4 ms
     * picked may hold no step wide enough to find on a loaded machine. */
    await page.evaluate(() => {
      const tl = window.__recorder.timeline, st = window.__recorder.store;
      tl.setLive(false);
      const mid = (st.detailStart + st.maxTs) / 2;
      tl.span = Math.min(100e6, (st.maxTs - st.detailStart) / 2);
      tl.t1 = mid + tl.span / 2;
      tl.moved();
    });
    await until(async () => page.evaluate(() => {
      const tl = window.__recorder.timeline;
      return !!window.__widestStep(tl.t0, tl.t1);
    }), 20000, 200);
    await page.evaluate(() => {
      const tl = window.__recorder.timeline, st = window.__recorder.store;
      const w = window.__widestStep(tl.t0, tl.t1), mid = w ? (w.s + w.e) / 2 : (st.detailStart + st.maxTs) / 2;
      tl.span = Math.min(4e6, (st.maxTs - st.detailStart) / 2);
      tl.t1 = Math.min(mid + tl.span / 2, st.maxTs);
      tl.moved();
    });
    /* Polled: a loaded machine may take a while to lay out and draw. */
    let slice = null;
    await until(async () => (slice = await page.evaluate(() => window.__recorder.findSlice('step', 1))) !== null, 10000, 200);
    s = await state();
    const kept = await page.evaluate(() => {
      const st = window.__recorder.store, tl = window.__recorder.timeline;
      const lanes = tl.tracks.filter((t) => t.kind === 'lane').map((t) => {
        const names = {};
        for (let d = 0; d < t.rows; d++) {
          const row = t.L.rows[d];
          if (!row) continue;
          for (let i = 0; i < row.n; i++) if (row.e[i] >= tl.t0 && row.s[i] < tl.t1) names[st.name(row.nm[i])] = (names[st.name(row.nm[i])] || 0) + 1;
        }
        return { label: t.L.label, rows: t.rows, rowsY: t.rowsY, names };
      });
      return { detailStart: st.detailStart, maxTs: st.maxTs, now: st.now, t0: tl.t0, t1: tl.t1, items: st.items, H: tl.H, scrollY: tl.scrollY, lanes };
    });
    check(slice !== null && !s.lod.region, 'zoomed into the kept region, slices and no summary', { slice, lod: s.lod, kept });
    await page.screenshot({ path: path.join(shots, 'capture-kept.png') });

    /* ---- zoomed into the first second, where the detail was dropped:
     * the window is read from the file, slices there ---- */
    const before = await page.evaluate(() => window.__recorder.store.detailStart);
    const where = await page.evaluate(() => {
      const tl = window.__recorder.timeline, st = window.__recorder.store, m = st.lodMsg;
      /* 4 ms in the first second where the summary says every worker
       * ran (the workers start a little after the file does). */
      let at = m.t0 + 300e6;
      for (let i = 0; i * m.width < 1e9; i++) {
        let busy = 0;
        for (const ll of m.lanes.values()) if (i >= ll.first && i < ll.first + ll.count && ll.events[i - ll.first] > 0) busy++;
        if (busy >= 3) { at = m.t0 + (i + 1) * m.width; break; }
      }
      tl.setLive(false);
      tl.span = 4e6;   /* as at the kept end: steps wide enough to find */
      tl.t1 = at + tl.span;
      tl.moved();
      return { at, start: m.t0 };
    });
    /* The file's answer for that window; then 4 ms around the widest step
     * it holds (the first 4 ms asked for may hold none on a loaded
     * machine), within what was read. */
    await until(async () => page.evaluate(() => {
      const st = window.__recorder.store, tl = window.__recorder.timeline, a = st.rangeAnswer;
      return !!(a && a.from <= tl.t0 && a.to >= tl.t1);
    }), 20000, 200);
    await page.evaluate(() => {
      const st = window.__recorder.store, tl = window.__recorder.timeline, a = st.rangeAnswer;
      const w = a && window.__widestStep(a.from, a.to);
      if (!w) return;
      tl.t1 = Math.max(a.from + tl.span, Math.min((w.s + w.e) / 2 + tl.span / 2, a.to));
      tl.moved();
    });
    let early = null;
    await until(async () => (early = await page.evaluate(() => window.__recorder.findSlice('step', 1))) !== null, 20000, 200);
    s = await state();
    const ans = await page.evaluate(() => Object.assign({ events: window.__recorder.store.rangeEvents }, window.__recorder.store.rangeAnswer));
    check(before > s.t1 && s.t1 - where.start < 1.2e9, 'the window zoomed into is in the first second, before the detail the file first gave', { before, t1: s.t1, where });
    check(early !== null && !s.lod.region && ans && ans.from <= s.t0 && ans.to >= s.t1,
      'zoomed into the first second: slices, read from the file on demand, and no summary band', { early, lod: s.lod, ans, where });
    await page.screenshot({ path: path.join(shots, 'capture-first-second.png') });
    check(errors.length === 0 && s.decodeErrors === 0, 'no page errors', errors);
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
    await stop(srv.proc);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
