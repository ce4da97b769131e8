/* multi.test.js -- several programs in one page: recorder-web PID1 PID2
 * (suite browser; docs/web.md "Several programs").  Two web_targets, the
 * second started 1.5 s after the first:
 *   - the header names both pids; every lane says whose it is, and its
 *     tid is a thread of that pid (/proc/PID/task/TID);
 *   - both programs' lanes get slices;
 *   - aligned in time: each program's newest event is within 0.5 s of
 *     the other's and of now -- without aligning, the second program's
 *     would be 1.5 s early (its clock starts 1.5 s later);
 *   - the same program twice, or a capture file with a program, is bad
 *     usage (2), one line. */
'use strict';
const fs = require('fs');
const path = require('path');
const { startTarget, startServer, run, stop, check, main, until, sleep, need } = require('./harness');
const { launch } = require('./chromium');   /* exits 77 without a browser */

const shots = need('WEB_SCREENSHOTS');
fs.mkdirSync(shots, { recursive: true });

main(async () => {
  const a = await startTarget(['--threads', '2', '--rate', '5000', '--seconds', '300']);
  await sleep(1500);
  const b = await startTarget(['--threads', '3', '--rate', '5000', '--seconds', '300']);
  const web = need('RECORDER_WEB');
  const twice = await run(web, [String(a.pid), String(a.pid), '--port', '0'], 10000);
  check(twice.code === 2 && /the same program twice/.test(twice.stderr) && twice.stderr.trim().split('\n').length === 1,
    'the same program twice: bad usage, one line', twice);
  const srv = await startServer([String(a.pid), String(b.pid), '--port', '0']);
  const { ctx, profile } = await launch();
  const page = ctx.pages()[0] || (await ctx.newPage());
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  try {
    await page.goto(srv.url);
    const state = () => page.evaluate(() => window.__recorder.state());
    let s;
    const up = await until(async () => {
      s = await state();
      return s.connected && s.procs.length === 2 && s.lanes.length === 7 && s.lanes.every((L) => L.slices > 0 || /dispatcher/.test(L.name));
    }, 30000, 200);
    check(up, 'both programs\' lanes, with slices', s && { procs: s.procs, lanes: s.lanes });
    const pidText = await page.textContent('#proc-pid');
    check(pidText === `pids ${a.pid}, ${b.pid}`, 'the header names both pids', pidText);
    const wrong = s.lanes.filter((L) => (L.pid !== a.pid && L.pid !== b.pid) || !fs.existsSync(`/proc/${L.pid}/task/${L.tid}`));
    check(wrong.length === 0 && s.lanes.filter((L) => L.pid === a.pid).length === 3 && s.lanes.filter((L) => L.pid === b.pid).length === 4,
      'every lane is a thread of the program it says', s.lanes);
    await sleep(1000);
    s = await state();
    const newest = (pid) => Math.max(...s.lanes.filter((L) => L.pid === pid).map((L) => L.lastTs));
    const ta = newest(a.pid), tb = newest(b.pid);
    check(Math.abs(ta - tb) < 0.5e9 && Math.abs(s.now - ta) < 1e9 && Math.abs(s.now - tb) < 1e9,
      'aligned in time: both programs\' newest events are now', { ta, tb, now: s.now });
    const labels = await page.evaluate(() => {
      const tl = window.__recorder.timeline;
      return tl.tracks.filter((t) => t.kind === 'lane').map((t) => window.__recorder.store.procOf(t.L));
    });
    check(labels.every((p) => p && (p.pid === a.pid || p.pid === b.pid)), 'the gutter says whose each lane is', labels);
    await page.screenshot({ path: path.join(shots, 'multi.png') });
    check(errors.length === 0 && s.decodeErrors === 0, 'no page errors', errors);
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
    await stop(srv.proc);
    await stop(a.proc);
    await stop(b.proc);
  }
});
