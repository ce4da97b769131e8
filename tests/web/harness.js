/* harness.js -- what recorder-web's node tests share: starting the
 * instrumented target and the server, raw HTTP requests, and a tiny
 * runner that reports each check and exits non-zero if any failed. */
'use strict';
const { spawn } = require('child_process');
const net = require('net');
const readline = require('readline');

const procs = new Set();
process.on('exit', () => { for (const p of procs) try { p.kill('SIGKILL'); } catch (e) { /* gone */ } });

function need(name) {
  const v = process.env[name];
  if (!v) {
    console.error(`${name} is not set (run through meson test)`);
    process.exit(2);
  }
  return v;
}

/* First line of a child's stdout that matches re, within ms. */
function lineMatching(proc, re, ms, what) {
  return new Promise((resolve, reject) => {
    const rl = readline.createInterface({ input: proc.stdout });
    const t = setTimeout(() => reject(new Error(`${what}: nothing matching ${re} within ${ms} ms`)), ms);
    rl.on('line', (line) => {
      const m = line.match(re);
      if (m) { clearTimeout(t); rl.removeAllListeners('line'); resolve(m); }
    });
    proc.on('exit', (code) => { clearTimeout(t); reject(new Error(`${what} exited (${code}) before printing ${re}`)); });
  });
}

function collect(stream) {
  const out = { text: '' };
  stream.on('data', (d) => { out.text += d; });
  return out;
}

/* An instrumented program that prints "ready PID": web_target, or the
 * program named by the environment variable exeVar. */
async function startTarget(args = [], env = {}, exeVar = 'WEB_TARGET') {
  const proc = spawn(need(exeVar), args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  procs.add(proc);
  proc.on('exit', () => procs.delete(proc));
  const err = collect(proc.stderr);
  const m = await lineMatching(proc, /^ready (\d+)/, 20000, exeVar).catch((e) => {
    throw new Error(e.message + ': ' + err.text);
  });
  return { proc, pid: Number(m[1]) };
}

/* The same, keeping every line it prints (t.lines), so that a later line
 * ("done") is waited for as a condition -- none can slip past between two
 * readers; spawnOpts: e.g. another uid.  Resolves once it printed "ready". */
async function startTargetLines(args = [], env = {}, spawnOpts = {}) {
  const proc = spawn(need('WEB_TARGET'), args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], ...spawnOpts });
  procs.add(proc);
  proc.on('exit', () => procs.delete(proc));
  const t = { proc, pid: 0, lines: [], stderr: collect(proc.stderr) };
  readline.createInterface({ input: proc.stdout }).on('line', (l) => t.lines.push(l));
  const ready = await until(() => t.lines.some((l) => /^ready \d+/.test(l)) || proc.exitCode !== null, 20000);
  const line = t.lines.find((l) => /^ready \d+/.test(l));
  if (!ready || !line) throw new Error('web_target did not say ready: ' + t.stderr.text);
  t.pid = Number(line.split(' ')[1]);
  return t;
}

async function startServer(args = [], env = {}) {
  const proc = spawn(need('RECORDER_WEB'), args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  procs.add(proc);
  proc.on('exit', () => procs.delete(proc));
  const err = collect(proc.stderr);
  const m = await lineMatching(proc, /^(http:\/\/[^\s]+)$/, 20000, 'recorder-web').catch((e) => {
    throw new Error(e.message + ': ' + err.text);
  });
  const url = new URL(m[1]);
  return { proc, url: m[1], port: Number(url.port), token: url.searchParams.get('t'), stderr: err };
}

/* Run a program to completion: {code, stdout, stderr}. */
function run(cmd, args, ms = 20000) {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    procs.add(p);
    const out = collect(p.stdout), err = collect(p.stderr);
    const t = setTimeout(() => { p.kill('SIGKILL'); reject(new Error(`${cmd} ${args.join(' ')}: still running after ${ms} ms`)); }, ms);
    p.on('exit', (code, sig) => {
      clearTimeout(t);
      procs.delete(p);
      resolve({ code: sig ? 128 : code, stdout: out.text, stderr: err.text });
    });
  });
}

function stop(proc) {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve(proc.exitCode);
    proc.once('exit', (code) => resolve(code));
    proc.kill('SIGTERM');
  });
}

/* One HTTP/1.1 request over a raw socket, so the path goes out exactly as
 * written (no client-side normalization).  Resolves {status, head, body}. */
function request(port, path, { method = 'GET', headers = {}, host } = {}) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    const chunks = [];
    sock.on('connect', () => {
      const lines = [`${method} ${path} HTTP/1.1`, `Host: ${host || '127.0.0.1:' + port}`, 'Connection: close'];
      for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
      sock.write(lines.join('\r\n') + '\r\n\r\n');
    });
    sock.on('data', (d) => chunks.push(d));
    sock.on('error', reject);
    sock.on('close', () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      const head = end < 0 ? all.toString() : all.subarray(0, end).toString();
      const status = Number((head.match(/^HTTP\/1\.[01] (\d+)/) || [])[1] || 0);
      resolve({ status, head, body: end < 0 ? Buffer.alloc(0) : all.subarray(end + 4) });
    });
    sock.setTimeout(60000, () => sock.destroy(new Error('request timed out')));
  });
}

/* The checks: each prints ok/FAIL; the process exits 1 if any failed. */
let failures = 0, checks = 0;
function check(cond, what, detail) {
  checks++;
  if (cond) console.log('ok   ' + what);
  else {
    failures++;
    console.log('FAIL ' + what + (detail !== undefined ? ': ' + (typeof detail === 'string' ? detail : JSON.stringify(detail)) : ''));
  }
  return cond;
}

async function main(fn) {
  try {
    await fn();
  } catch (e) {
    failures++;
    console.log('FAIL (exception) ' + (e && e.stack ? e.stack : e));
  }
  console.log(`${checks} checks, ${failures} failed`);
  for (const p of procs) try { p.kill('SIGKILL'); } catch (e) { /* gone */ }
  process.exit(failures ? 1 : 0);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/* Poll cond() until true or ms pass; resolves to its last value. */
async function until(cond, ms, step = 50) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > end) {
      /* In the log: which wait ran out, when a check after it fails. */
      console.error(`until: not met within ${ms} ms: ${new Error().stack.split('\n')[2].trim()}`);
      return v;
    }
    await sleep(step);
  }
}

/* The text of selector sel once ok(text) holds, or the last one read when
 * ms pass.  The page shows a change of its state on its next frame, later
 * on a loaded machine: what a test checks on screen, it waits for, as for
 * any other condition. */
async function shownText(page, sel, ok, ms = 20000) {
  let text = '';
  await until(async () => ok(text = (await page.textContent(sel).catch(() => '')) || ''), ms, 50);
  return text;
}

/* Resident memory of a process, kB (VmRSS in /proc/PID/status). */
function rssKb(pid) {
  const m = require('fs').readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/);
  return m ? Number(m[1]) : NaN;
}

/* Which sanitizer a process runs under ('asan', 'tsan' or ''): memory
 * bounds are looser there (shadow memory, ASan's quarantine). */
function sanitizer(pid) {
  const maps = require('fs').readFileSync(`/proc/${pid}/maps`, 'utf8');
  return /libasan/.test(maps) ? 'asan' : /libtsan/.test(maps) ? 'tsan' : '';
}

/* Until a page's STATUS says the server read nothing new for `times`
 * STATUS periods in a row (the program is quiet, or gone). */
async function quiet(peer, ms = 120000, times = 8) {
  let last = -1, same = 0;
  return until(() => {
    const s = peer.statusMsg;
    if (!s) return false;
    if (s.events === last) same++;
    else { same = 0; last = s.events; }
    return same >= times;
  }, ms, 250);
}

/* Until a page's STATUS says nothing is queued for it and `sent` stays
 * put for 4 STATUS periods: everything offered to it so far arrived. */
async function drained(peer, ms = 120000) {
  let last = -1, same = 0;
  return until(() => {
    const s = peer.statusMsg;
    if (!s || s.queued !== 0) return false;
    if (s.sent === last) same++;
    else { same = 0; last = s.sent; }
    return same >= 4;
  }, ms, 250);
}

/* utime + stime of a process, in seconds (Linux's USER_HZ is 100). */
function cpuSeconds(pid) {
  const f = require('fs').readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/* Stop recorder-web and check that it ended cleanly: exit 0 and no
 * sanitizer report on its stderr (the ASan+UBSan build's reports). */
async function stopClean(srv) {
  const code = await stop(srv.proc);
  check(code === 0 && !/Sanitizer|runtime error/.test(srv.stderr.text), 'recorder-web stops cleanly, nothing reported on stderr',
    { code, stderr: srv.stderr.text.slice(-800) });
}

module.exports = { shownText, startTargetLines, cpuSeconds, stopClean, lineMatching, rssKb, sanitizer, quiet, drained, need, startTarget, startServer, run, stop, request, check, main, sleep, until };
