// bench/web/server_pair.js -- two recorder-web servers, A and B, watch the
// same bench/watch/watch_work at the same time, each with a client that
// decodes every message as the page does (tests/web/peer.js); prints each
// server's CPU over the run and B/A.
//
// Why at once: on a shared machine one build's CPU varies by a third from
// run to run, so A and B run one after the other cannot be told apart
// within 10-20%.  Side by side, both see the same machine.  The server
// started first does a little more (it gets the first events and the
// first wake-ups), so runs alternate which one starts first, and each
// pair of runs gives the geometric mean of its two ratios
// (docs/performance/watch.md, "The event log").
'use strict';
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { Peer } = require(path.join(__dirname, '../../tests/web/peer'));

const USAGE = `usage: node bench/web/server_pair.js --work WATCH_WORK --a 'RECORDER_WEB [ARGS]' --b 'RECORDER_WEB [ARGS]'
                      [--pairs N] [--seconds S]
  --work PATH     bench/watch/watch_work of a build
  --a, --b CMD    the two servers: a recorder-web, with options of its own after it (split at spaces)
  --pairs N       pairs of runs, each with A then B started first (default 3)
  --seconds S     length of each run (default 12)`;

function usageError(msg) {
  console.error(`server_pair.js: ${msg}\n${USAGE}`);
  process.exit(2);
}

const opt = { work: null, a: null, b: null, pairs: 3, seconds: 12 };
for (let i = 2; i < process.argv.length; i++) {
  const k = process.argv[i];
  if (k === '-h' || k === '--help') {
    console.log(USAGE);
    process.exit(0);
  }
  const name = { '--work': 'work', '--a': 'a', '--b': 'b', '--pairs': 'pairs', '--seconds': 'seconds' }[k];
  if (!name) usageError(`unknown option '${k}'`);
  const v = process.argv[++i];
  if (v === undefined) usageError(`${k} wants a value`);
  if (name === 'pairs' || name === 'seconds') {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > 1000) usageError(`${k} wants a whole number 1-1000, not '${v}'`);
    opt[name] = n;
  } else {
    opt[name] = v;
  }
}
for (const k of ['work', 'a', 'b']) if (!opt[k]) usageError(`--${k} is required`);

const children = [];   /* killed if a run fails */

/* user + system CPU seconds of a process, from /proc */
function cpu(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

function lineOf(stream, re) {
  let text = '';
  return new Promise((resolve, reject) => {
    stream.on('data', (d) => {
      text += d;
      const m = re.exec(text);
      if (m) resolve(m);
    });
    stream.on('end', () => reject(new Error(`no line matching ${re} in: ${text.slice(-300)}`)));
    stream.on('error', reject);
  });
}

async function serve(cmd, pid) {
  const [exe, ...extra] = cmd.split(' ').filter((s) => s);
  const srv = spawn(exe, [String(pid), '--port', '0', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';   /* shown only if it fails to start: otherwise one line per run */
  srv.stderr.on('data', (d) => { err += d; });
  children.push(srv);
  const failed = new Promise((resolve, reject) => srv.on('error', reject));
  const m = await Promise.race([lineOf(srv.stdout, /^http:\/\/[^:/]+:(\d+)\/\S*[?&]t=([0-9a-f]+)/m), failed])
    .catch((e) => {
      throw new Error(`${exe} did not start: ${err.trim() || e.message}`);
    });
  const peer = await Peer.open(Number(m[1]), m[2]);
  return { srv, peer };
}

/* One run; returns the CPU seconds of [A, B]. */
async function run(aFirst) {
  const w = spawn(opt.work, ['--seconds', String(opt.seconds)], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(w);
  w.on('error', (e) => w.stdout.emit('error', e));
  let out = '';
  w.stdout.on('data', (d) => { out += d; });
  const pid = Number((await lineOf(w.stdout, /^ready (\d+)/m))[1]);
  const first = await serve(aFirst ? opt.a : opt.b, pid);
  const second = await serve(aFirst ? opt.b : opt.a, pid);
  const [a, b] = aFirst ? [first, second] : [second, first];
  const a0 = cpu(a.srv.pid), b0 = cpu(b.srv.pid);
  w.stdin.write('go\n');
  await new Promise((resolve) => w.on('exit', resolve));
  const cpuA = cpu(a.srv.pid) - a0, cpuB = cpu(b.srv.pid) - b0;
  for (const s of [a, b]) {
    s.peer.close();
    s.srv.kill('SIGTERM');
  }
  const ev = /events (\d+)/.exec(out);
  console.log(`  ${aFirst ? 'A' : 'B'} first: ${ev ? ev[1] : '?'} events, A ${cpuA.toFixed(2)} s, B ${cpuB.toFixed(2)} s, ` +
    `B/A ${(cpuB / cpuA).toFixed(3)}`);
  return cpuB / cpuA;
}

(async () => {
  console.log(`load: ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} (1, 5, 15 min) before`);
  console.log(`A: ${opt.a}\nB: ${opt.b}`);
  const pairs = [];
  for (let i = 0; i < opt.pairs; i++) {
    const r1 = await run(true), r2 = await run(false);
    pairs.push(Math.sqrt(r1 * r2));
    console.log(`pair ${i + 1}: B/A ${pairs[i].toFixed(3)}`);
  }
  const s = [...pairs].sort((x, y) => x - y);
  const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  console.log(`B/A, server CPU: median ${median.toFixed(3)} of ${s.length} pairs (${s[0].toFixed(3)}..${s[s.length - 1].toFixed(3)})`);
})().catch((e) => {
  for (const c of children) c.kill('SIGKILL');
  console.error(`server_pair.js: ${e.message}`);
  process.exit(1);
});
