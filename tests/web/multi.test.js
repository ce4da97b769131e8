/* multi.test.js -- several programs in one page: recorder-web PID1 PID2
 * (suite browser; docs/web.md "Several programs").  Two web_targets, the
 * second started 1.5 s after the first:
 *   - the header names both pids; every lane says whose it is, and its
 *     tid is a thread of that pid (/proc/PID/task/TID);
 *   - both programs' lanes get slices;
 *   - aligned in time: the second program's first slice comes at least
 *     1.5 s after the first program's (it started 1.5 s later, or more);
 *     without aligning, both would start near 0 (each clock starts at its
 *     own program's start);
 *   - the same program twice, or a capture file with a program, is bad
 *     usage (2), one line;
 *   - --tree PID: a program and the one it started, in one page. */
'use strict';
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { startTarget, startServer, run, stop, check, main, until, sleep, need, lineMatching, shownText } = require('./harness');
const { launchPage } = require('./chromium');   /* exits 77 without a browser */

const shots = need('WEB_SCREENSHOTS');
fs.mkdirSync(shots, { recursive: true });

/* --tree PID: sh starts the child, then becomes the parent (exec keeps its
 * pid and start time, which the child's segment names as its parent). */
async function treeCase(ctx) {
  const wt = need('WEB_TARGET');
  const args = '--rate 5000 --seconds 300';
  const sh = spawn('sh', ['-c', `"$0" --threads 1 ${args} >/dev/null & exec "$0" --threads 2 ${args}`, wt],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let child = 0, srv = null;
  try {
    const m = await lineMatching(sh, /^ready (\d+)/, 20000, 'the parent web_target');
    check(Number(m[1]) === sh.pid, 'the parent is the shell it replaced', { ready: m[1], sh: sh.pid });
    await until(() => {
      const kids = fs.readFileSync(`/proc/${sh.pid}/task/${sh.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
      child = kids.length ? Number(kids[0]) : 0;
      return child && fs.existsSync(`/dev/shm/recorder.${child}`);
    }, 20000, 50);
    const web = need('RECORDER_WEB');
    const bad = await run(web, ['--tree', String(sh.pid), String(child), '--port', '0'], 10000);
    check(bad.code === 2 && /--tree takes one PID/.test(bad.stderr), '--tree with another program: bad usage', bad);
    srv = await startServer(['--tree', String(sh.pid), '--port', '0']);
    const page = await ctx.newPage();
    await page.goto(srv.url);
    let s;
    const up = await until(async () => {
      s = await page.evaluate(() => window.__recorder.state());
      return s.connected && s.procs.length === 2;
    }, 30000, 200);
    const pids = s ? s.procs.map((p) => p.pid) : [];
    check(up && pids[0] === sh.pid && pids[1] === child, '--tree: the parent and its child in one page, the parent first',
      { pids, parent: sh.pid, child });
    await page.close();
  } finally {
    if (srv) await stop(srv.proc);
    if (child) try { process.kill(child, 'SIGTERM'); } catch (e) { /* gone */ }
    await stop(sh);
  }
}

main(async () => {
  const a = await startTarget(['--threads', '2', '--rate', '5000', '--seconds', '300']);
  await sleep(1500);
  const b = await startTarget(['--threads', '3', '--rate', '5000', '--seconds', '300']);
  const web = need('RECORDER_WEB');
  const twice = await run(web, [String(a.pid), String(a.pid), '--port', '0'], 10000);
  check(twice.code === 2 && /the same program twice/.test(twice.stderr) && twice.stderr.trim().split('\n').length === 1,
    'the same program twice: bad usage, one line', twice);
  const srv = await startServer([String(a.pid), String(b.pid), '--port', '0']);
  const { ctx, profile, page, errors } = await launchPage();
  try {
    await page.goto(srv.url);
    const state = () => page.evaluate(() => window.__recorder.state());
    let s;
    const up = await until(async () => {
      s = await state();
      return s.connected && s.procs.length === 2 && s.lanes.length === 7 && s.lanes.every((L) => L.slices > 0 || /dispatcher/.test(L.name));
    }, 30000, 200);
    check(up, 'both programs\' lanes, with slices', s && { procs: s.procs, lanes: s.lanes });
    const pidText = await shownText(page, '#proc-pid', (t) => t === `pids ${a.pid}, ${b.pid}`);
    check(pidText === `pids ${a.pid}, ${b.pid}`, 'the header names both pids', pidText);
    const wrong = s.lanes.filter((L) => (L.pid !== a.pid && L.pid !== b.pid) || !fs.existsSync(`/proc/${L.pid}/task/${L.tid}`));
    check(wrong.length === 0 && s.lanes.filter((L) => L.pid === a.pid).length === 3 && s.lanes.filter((L) => L.pid === b.pid).length === 4,
      'every lane is a thread of the program it says', s.lanes);
    const first = (pid) => Math.min(...s.lanes.filter((L) => L.pid === pid).map((L) => L.firstTs));
    const fa = first(a.pid), fb = first(b.pid);
    check(Number.isFinite(fa) && Number.isFinite(fb) && fb - fa >= 1.5e9,
      'aligned in time: the second program starts 1.5 s after the first on the page', { fa, fb });
    const labels = await page.evaluate(() => {
      const tl = window.__recorder.timeline;
      return tl.tracks.filter((t) => t.kind === 'lane').map((t) => window.__recorder.store.procOf(t.L));
    });
    check(labels.every((p) => p && (p.pid === a.pid || p.pid === b.pid)), 'the gutter says whose each lane is', labels);
    await page.screenshot({ path: path.join(shots, 'multi.png') });
    check(errors.length === 0 && s.decodeErrors === 0, 'no page errors', errors);
    await treeCase(ctx);
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
    await stop(srv.proc);
    await stop(a.proc);
    await stop(b.proc);
  }
});
