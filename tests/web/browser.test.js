/* browser.test.js -- the page in Debian's chromium, headless, driven by
 * playwright-core (suite browser): it loads and connects; the lanes show
 * the threads and the scope names; zoom, pan and pause work with the
 * mouse; hovering a slice names it; the top table and the flame graph
 * fill in; the downloaded snapshot passes the same strict check as
 * `recorder dump` (tests/analysis/check_trace.py).  Screenshots go to
 * WEB_SCREENSHOTS (in the build directory) for people to look at.
 *
 * Needs RECORDER_WEB, WEB_TARGET, WEB_SCREENSHOTS, playwright-core in
 * tests/node (npm install there) and /usr/bin/chromium; skips (77)
 * without the last two. */
'use strict';
const fs = require('fs');
const path = require('path');
const { startTarget, startServer, run, stop, check, main, until, sleep, need, shownText } = require('./harness');

const { launchPage, closeBrowser } = require('./chromium');   /* exits 77 without a browser */

const shots = need('WEB_SCREENSHOTS');
fs.mkdirSync(shots, { recursive: true });

main(async () => {
  const target = await startTarget(['--threads', '3', '--rate', '4000', '--work-ns', '100000']);
  const srv = await startServer([String(target.pid), '--port', '0']);
  const browser = await launchPage();
  const { page, errors } = browser;
  try {
    await page.goto(srv.url);
    const state = () => page.evaluate(() => window.__recorder.state());

    /* ---- it loads, connects and streams ---- */
    const up = await until(async () => {
      const s = await state();
      /* t1 > 5 s: the paused view below has seconds of data to zoom into. */
      return s.connected && s.lanes.length >= 4 && s.events > 20000 && s.topRows.length > 0 && s.flameNodes > 3 && s.t1 > 5e9;
    }, 60000, 200);
    let s = await state();
    check(up, 'the page connects and events stream in', { connected: s.connected, lanes: s.lanes.length, events: s.events });
    check((await shownText(page, '#conn', (t) => t.includes('connected'))).includes('connected'), 'the status says connected');
    const procName = await shownText(page, '#proc-name', (t) => t === 'web_target');
    const procPid = await shownText(page, '#proc-pid', (t) => t === 'pid ' + target.pid);
    check(procName === 'web_target' && procPid === 'pid ' + target.pid, 'the header names the program and its pid',
      { procName, procPid });
    const lanes = s.lanes.map((l) => l.name);
    check(['dispatcher', 'worker-0', 'worker-1', 'worker-2'].every((n) => lanes.includes(n)), 'a lane per thread, by name', lanes);
    check(s.lanes.every((l) => l.tid > 0), 'each lane knows its thread id', s.lanes);
    check(s.lanes.filter((l) => l.name.startsWith('worker')).every((l) => l.depth >= 3), 'the workers show three levels of nesting', s.lanes);
    await page.screenshot({ path: path.join(shots, 'live.png') });

    /* ---- the top table and the flame graph ---- */
    const top = await page.textContent('#top-body');
    check(['step', 'layer', 'attention', 'matmul_blk.2'].every((n) => top.includes(n)), 'the top table lists the scopes', top.slice(0, 200));
    check(s.flameNodes > 5, 'the flame graph has the call tree', s.flameNodes);
    await page.click('#window button[data-w="2"]');
    check(await until(async () => (await page.textContent('#top-sub')).includes('whole run'), 20000, 100), 'the window switch shows the whole run');

    /* ---- following live time, frames are shifted and patched: they
     * must match a full repaint of the same moment.  Not compared: the
     * first 8 columns, where a counter's band starts from the value in
     * force at the edge rather than from the columns now scrolled off. */
    let same = 0, incr = 0, worst = [];
    /* Six incremental frames, however long a loaded machine takes to draw them. */
    for (let i = 0; i < 400 && incr < 6; i++) {
      await sleep(150);
      const r = await page.evaluate(() => window.__recorder.checkRepaint());
      if (r && r.incremental) {
        incr++;
        const bad = r.columns.filter((x) => x >= r.gutter + 8);
        if (bad.length === 0) same++;
        else worst = { columns: bad.slice(0, 10), pixels: r.samples, tracks: r.tracks };
      }
    }
    check(incr > 0 && same === incr, 'shifted live frames equal full repaints', { incremental: incr, equal: same, columns: worst });

    /* ---- zoom (live: the right edge stays on now) ---- */
    const box = await page.locator('#tl-canvas').boundingBox();
    const before = await state();
    await page.mouse.move(box.x + box.width * 0.8, box.y + box.height * 0.5);
    for (let i = 0; i < 3; i++) await page.mouse.wheel(0, -500);
    s = await state();
    check(s.span < before.span / 4 && s.live, 'the wheel zooms in, still following live time', { before: before.span, after: s.span });
    for (let i = 0; i < 3; i++) await page.mouse.wheel(0, 500);
    s = await state();
    check(Math.abs(s.span - before.span) / before.span < 0.01, 'and back out', { before: before.span, after: s.span });

    /* ---- pause: the view holds still while events keep coming ---- */
    await page.click('#btn-pause');
    const paused = await state();
    check(!paused.live && (await page.textContent('#btn-pause')) === 'Live', 'Pause stops following time');
    const evBefore = paused.events;
    await until(async () => (await state()).events > evBefore + 2000, 20000, 100);
    s = await state();
    check(s.t1 === paused.t1 && s.t0 === paused.t0, 'a paused view does not move', { paused: [paused.t0, paused.t1], now: [s.t0, s.t1] });
    check(s.events > evBefore, 'events keep arriving while paused', { before: evBefore, after: s.events });

    /* ---- zoom in at the pointer until slices carry their names: first
     * to about 100 ms, then onto a "step" slice found there ---- */
    await page.mouse.move(box.x + box.width * 0.75, box.y + box.height * 0.5);
    for (let i = 0; i < 7; i++) await page.mouse.wheel(0, -500);
    s = await state();
    const tAt = (x) => s.t0 + ((x - 184) * (s.t1 - s.t0)) / (box.width - 184);
    const anchor = box.width * 0.75;
    check(s.span < 200e6 && Math.abs(tAt(anchor) - (paused.t0 + ((anchor - 184) * (paused.t1 - paused.t0)) / (box.width - 184))) < s.span * 0.02,
      'zooming in keeps the time under the pointer in place', { span: s.span });
    const stepSlice = await page.evaluate(() => window.__recorder.findSlice('step', 1));
    check(stepSlice !== null, 'a "step" slice is visible at 100 ms');
    if (stepSlice) {
      await page.mouse.move(stepSlice.x, stepSlice.y);
      for (let i = 0; i < 4; i++) await page.mouse.wheel(0, -500);
    }
    /* The labels are those of the last frame painted: wait for one that has them. */
    const labelled = () => ['step', 'layer', 'attention'].filter((n) => s.labels.includes(n));
    await until(async () => { s = await state(); return labelled().length >= 2; }, 5000, 50);
    const named = labelled();
    check(named.length >= 2, 'zoomed in, slices are labelled with their scope names', s.labels);
    const hit = await page.evaluate(() => window.__recorder.findSlice('layer'));
    check(hit !== null, 'a "layer" slice is on screen');
    if (hit) {
      await page.mouse.move(hit.x, hit.y);
      await until(async () => page.isVisible('#tooltip'), 5000, 50);
      const tip = (await page.textContent('#tooltip')) || '';
      check(tip.startsWith('layer') && /duration/.test(tip) && /self/.test(tip) && /worker-\d/.test(tip),
        'hovering a slice shows its name, duration, self time and thread', tip);
      await page.screenshot({ path: path.join(shots, 'zoomed-hover.png') });
    }

    /* A step's token instant lies where its worker's step ends; zoomed in on
     * one slice, none may be in view (on a loaded machine steps are long):
     * zoom out a notch at a time until one is alone enough to hover. */
    let mark = await page.evaluate(() => window.__recorder.findInstant('token'));
    for (let i = 0; !mark && i < 8; i++) {
      await page.mouse.wheel(0, 300);
      await sleep(100);
      mark = await page.evaluate(() => window.__recorder.findInstant('token'));
    }
    check(mark !== null, 'a "token" instant is on screen');
    if (mark) {
      await page.mouse.move(mark.x, mark.y);
      await until(async () => ((await page.textContent('#tooltip')) || '').startsWith('token'), 5000, 50);
      const tip = (await page.textContent('#tooltip')) || '';
      check(tip.startsWith('token') && /messagetoken=\d+/.test(tip), 'hovering an instant shows its message', tip);
    }

    /* ---- pan with the mouse ---- */
    const p0 = await state();
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.5, { steps: 5 });
    await page.mouse.up();
    s = await state();
    check(s.t1 > p0.t1 && Math.abs(s.span - p0.span) < 1, 'dragging pans the view in time', { before: p0.t1, after: s.t1 });

    /* ---- back to live ---- */
    await page.click('#btn-pause');
    s = await state();
    check(s.live && (await page.textContent('#btn-pause')) === 'Pause', 'Live follows time again');

    /* ---- the snapshot download ---- */
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 120000 }), page.click('#btn-download')]);
    const file = path.join(shots, '..', 'snapshot.json');
    await download.saveAs(file);
    check(download.suggestedFilename() === `recorder-${target.pid}.json`, 'the download is named after the program', download.suggestedFilename());
    let trace = null;
    try { trace = JSON.parse(fs.readFileSync(file, 'utf8')); } catch (e) { check(false, 'the snapshot is JSON', String(e)); }
    if (trace) {
      const names = new Set((trace.traceEvents || []).map((e) => e.name));
      check(['step', 'layer', 'attention', 'matmul_blk.1', 'dispatch', 'session'].every((n) => names.has(n)), 'the snapshot has the scopes');
    }
    const checker = path.join(__dirname, '../analysis/check_trace.py');
    if (check(fs.existsSync(checker), 'tests/analysis/check_trace.py is there')) {
      const r = await run('python3', [checker, file], 300000);
      check(r.code === 0, 'the downloaded snapshot passes check_trace.py (as `recorder dump` does)', (r.stdout + r.stderr).slice(0, 2000));
    }
    /* The same in Perfetto's protobuf (decoded in downloads.test.js): a
     * file named .pftrace, a stream of TracePackets (field 1,
     * length-delimited: its first byte is 0x0a). */
    const [pfd] = await Promise.all([page.waitForEvent('download', { timeout: 120000 }), page.click('#btn-download-pf')]);
    const pfile = path.join(shots, '..', 'snapshot.pftrace');
    await pfd.saveAs(pfile);
    const pbytes = fs.readFileSync(pfile);
    check(pfd.suggestedFilename() === `recorder-${target.pid}.pftrace` && pbytes.length > 1000 && pbytes[0] === 0x0a,
      'the .pftrace button downloads Perfetto\'s protobuf', [pfd.suggestedFilename(), pbytes.length, pbytes[0]]);

    await page.screenshot({ path: path.join(shots, 'live-end.png') });
    s = await state();
    console.log(`info: ${s.events} events received, ${s.fps.toFixed(1)} frames/s in the page ` +
      `(${s.drawsPerSec.toFixed(1)} redraws/s), lost ${s.lost}, thinned ${s.thinned}`);
    check(s.decodeErrors === 0, 'every message decoded');
    check(errors.length === 0, 'no errors in the page', errors.slice(0, 5));

    /* ---- a hidden tab (a background tab) is sent no events ---- */
    const hide = (h) => page.evaluate((h) => {
      Object.defineProperty(document, 'hidden', { value: h, configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    }, h);
    await hide(true);
    check(await until(async () => (await state()).hidden > 0, 30000, 100),
      'a hidden tab tells recorder-web, which sends it no events and says how many (STATUS)');
    const shownAt = (await state()).events;
    await hide(false);
    check(await until(async () => (await state()).events > shownAt, 30000, 100), 'shown again, the tab gets events again');

    /* ---- the program exits: the page says so and keeps the data ---- */
    await stop(target.proc);
    const exited = await until(async () => (await page.textContent('#conn')).includes('exited'), 30000, 100);
    check(exited, 'when the program exits, the status says so');
    /* Nothing moves: the loop sleeps on a timer between its paced
     * redraws, asking the browser for no animation frame (each costs its
     * whole rendering pipeline: docs/performance/watch.md).  A loop that
     * asked for one every frame would never be seen asleep. */
    check(await until(() => page.evaluate(() => window.__recorder.loop().asleep), 30000, 20),
      'with nothing moving, the page asks for no animation frames between its redraws');
    await page.screenshot({ path: path.join(shots, 'exited.png') });

    /* ---- a thread flood: lanes are retired, and the page says how many ---- */
    const flood = await startTarget(['--rate', '1000', '--seconds', '10'], {}, 'THREAD_FLOOD');
    const fsrv = await startServer([String(flood.pid), '--port', '0']);
    try {
      await page.goto(fsrv.url);
      const retired = await until(async () => (await state()).lanesRetired > 2000, 60000, 250);
      s = await state();
      await page.screenshot({ path: path.join(shots, 'flood-lanes.png') });
      check(retired && s.lanes.length <= 4096, 'a thread flood: at most 4096 lanes on the page', { lanes: s.lanes.length, retired: s.lanesRetired });
      await until(async () => /retired/.test(await page.textContent('#m-lanes')), 5000, 100);
      const shown = await page.textContent('#m-lanes'), tip = await page.getAttribute('#m-lanes-box', 'title');
      check(/^\d[\d.k]* · [\d.]+k? retired/.test(shown) && /were retired/.test(tip), 'the header shows the lanes and how many were retired', { shown, tip });
      check(errors.length === 0 && s.decodeErrors === 0, 'no errors in the page during the flood', errors.slice(0, 5));
    } finally {
      await stop(fsrv.proc);
      await stop(flood.proc);
    }
  } finally {
    await closeBrowser(browser);
    await stop(srv.proc);
    await stop(target.proc);
  }
});
