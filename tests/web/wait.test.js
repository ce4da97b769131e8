/* wait.test.js -- recorder-web --wait (issue 14; suite web).  A program
 * started just before has no segment until its first event: web_target
 * --delay-ms holds that back until SIGUSR1, so the test knows
 * recorder-web is waiting before the program records (no timing).  Then:
 * a program that exits without recording (12), a time limit (13), a
 * segment name (RECORDER_NAME). */
'use strict';
const { spawn } = require('child_process');
const readline = require('readline');
const { need, run, stop, request, check, main } = require('./harness');

const HELD = '600000';   /* ms: the target records only when told */

/* The target, and a promise that it catches SIGUSR1 (its "held" line):
 * signalled before, it would die of it, and --wait would wait on. */
function held(env = {}) {
  const t = spawn(need('WEB_TARGET'), ['--threads', '2', '--delay-ms', HELD],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  t.caught = new Promise((resolve) => {
    readline.createInterface({ input: t.stdout }).on('line', (l) => { if (/^held /.test(l)) resolve(true); });
    t.on('exit', () => resolve(false));
  });
  return t;
}

/* recorder-web with these arguments, and promises of its first stderr
 * line, its URL and its exit. */
function server(args) {
  const proc = spawn(need('RECORDER_WEB'), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = [];
  const first = new Promise((resolve) => {
    readline.createInterface({ input: proc.stderr }).on('line', (l) => { lines.push(l); if (lines.length === 1) resolve(l); });
    proc.on('exit', () => resolve(lines[0] || ''));
  });
  const url = new Promise((resolve) => {
    readline.createInterface({ input: proc.stdout }).on('line', (l) => { if (/^http:/.test(l)) resolve(l); });
    proc.on('exit', () => resolve(''));
  });
  const exit = new Promise((resolve) => proc.on('exit', (code, sig) => resolve(sig ? 128 : code)));
  return { proc, first, url, exit, lines };
}

main(async () => {
  const t = held();
  try {
    let r = await run(need('RECORDER_WEB'), [String(t.pid), '--port', '0']);
    check(r.code === 3 && /has no segment/.test(r.stderr), 'without --wait: no segment yet (3)', r);
    const s = server(['--wait', String(t.pid), '--port', '0']);
    const first = await s.first;
    check(first.includes(`waiting for PID ${t.pid} to start recording`), '--wait says it waits', first);
    check(await t.caught, 'the target is held');
    t.kill('SIGUSR1');
    const url = await s.url;
    check(url !== '', 'then serves the program', s.lines);
    if (url) {
      const u = new URL(url);
      const page = await request(Number(u.port), '/?t=' + u.searchParams.get('t'));
      check(page.status === 200, 'the page is there', page.status);
    }
    check(s.lines.some((l) => l.includes(`watching web_target (pid ${t.pid})`)), 'watching that pid', s.lines);
    check(s.lines.filter((l) => l.includes('waiting for')).length === 1, 'said once that it waits', s.lines);
    await stop(s.proc);
  } finally {
    await stop(t);
  }

  const t2 = held();
  try {
    let r = await run(need('RECORDER_WEB'), ['--wait=0.3', String(t2.pid), '--port', '0']);
    check(r.code === 13 && /has not started recording after 0.3 s/.test(r.stderr), '--wait=0.3: 13', r);
    check(t2.exitCode === null, 'the program is left alone');
    const s = server(['--wait', String(t2.pid), '--port', '0']);
    const first = await s.first;
    check(first.includes('waiting for PID'), '--wait is waiting', first);
    await stop(t2);   /* SIGTERM before its first event: it exits without recording */
    const code = await s.exit;
    check(code === 12 && s.lines.some((l) => l.includes(`process ${t2.pid} exited without recording`)),
      'a program that exits without recording: 12', { code, lines: s.lines });
  } finally {
    await stop(t2);
  }

  const name = `webwait-${process.pid}`;
  const t3 = held({ RECORDER_NAME: name });
  try {
    const s = server(['--wait', name, '--port', '0']);
    const first = await s.first;
    check(first.includes(`waiting for ${name} to start recording`), '--wait NAME says it waits', first);
    check(await t3.caught, 'the target is held');
    t3.kill('SIGUSR1');
    check((await s.url) !== '', '--wait NAME: then serves it', s.lines);
    await stop(s.proc);
  } finally {
    await stop(t3);
  }
  const r = await run(need('RECORDER_WEB'), ['--wait']);
  check(r.code === 2 && /--wait needs a PID or NAME/.test(r.stderr), '--wait alone: 2', r);
});
