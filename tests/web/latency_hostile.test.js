/* latency_hostile.test.js -- the LATENCY question (CMSG_LATENCY, docs/web.md
 * "Protocol") from pages that misbehave, and from a capture file (suite
 * web; under the ASan+UBSan build any sanitizer report fails it):
 *  - ids no scope has (0, 2^31, 2^32-1, past the names) get a "not
 *    summarised" answer, and the page stays connected;
 *  - a question of the wrong length closes that connection (1008), and
 *    only that one;
 *  - a flood of questions (thousands at once, same and distinct ids) is
 *    answered within the rate bound (a burst of 32, then 16 a second):
 *    the server does bounded work, and other pages carry on;
 *  - a capture file (recorder-web FILE.rec) answers too, with every call
 *    of the scope that `recorder dump` exports. */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { startTarget, startServer, stopClean, stop, check, main, until, sleep, need, run } = require('./harness');
const { Peer } = require('./peer');

const total = (m) => m.buckets.reduce((x, B) => x + B.n, 0);

async function live() {
  const t = await startTarget(['--threads', '2', '--rate', '5000']);
  const srv = await startServer([String(t.pid), '--port', '0']);
  const a = await Peer.open(srv.port, srv.token), b = await Peer.open(srv.port, srv.token);
  check(await until(() => a.names.includes('step') && b.helloMsg, 20000), 'two pages connect; names arrive');
  const step = a.names.indexOf('step');

  /* A real scope: its histograms. */
  a.askLatency(step);
  let m = await until(() => a.latMsgs.find((x) => x.name === step), 10000);
  check(m && m.known && m.width > 0 && m.bpd === 10 && total(m) > 0, 'a scope with calls is answered with its histograms',
    m && { known: m.known, width: m.width, n: total(m) });

  /* Ids no scope has. */
  const odd = [0, 2 ** 31, 2 ** 32 - 1, a.names.length + 1000];
  for (const id of odd) a.askLatency(id);
  const got = await until(() => odd.every((id) => a.latMsgs.some((x) => x.name === id)), 10000);
  check(got && odd.every((id) => { const x = a.latMsgs.find((y) => y.name === id); return !x.known && x.buckets.length === 0; }),
    'ids no scope has get "not summarised"', a.latMsgs.filter((x) => odd.includes(x.name)));
  check(a.errors.length === 0 && !a.closed, 'the page stays connected, every answer decodes', a.errors);

  /* Wrong lengths close that connection only. */
  for (const [why, bytes] of [['too short', [0x83, 1, 2, 3]], ['too long', [0x83, 1, 2, 3, 4, 5]], ['bare', [0x83]]]) {
    const c = await Peer.open(srv.port, srv.token);
    await until(() => c.helloMsg, 10000);
    c.ws.send(Buffer.from(bytes));
    const closed = await c.ws.waitClose(15000).catch(() => null);
    check(closed && closed.code === 1008, `a LATENCY question ${why}: that connection is closed (1008)`, closed);
  }

  /* A flood: answers stay within the bound. */
  const before = b.latMsgs.length, t0 = Date.now();
  const buf = [];
  for (let i = 0; i < 5000; i++) buf.push(Buffer.from([0x83, i & 255, (i >> 8) & 255, 0, 0]));
  for (let i = 0; i < 5000; i++) buf.push(Buffer.from([0x83, step & 255, (step >> 8) & 255, 0, 0]));
  for (const x of buf) b.ws.send(x);
  /* At least 3 s of flood, and until an answer came (a loaded machine may
   * take longer): the bound is on answers per second over the time
   * measured, whatever it was. */
  await sleep(3000);
  await until(() => b.latMsgs.length > before, 60000);
  const secs = (Date.now() - t0) / 1000, answers = b.latMsgs.length - before;
  check(answers >= 1 && answers <= 32 + 16 * secs + 8, 'a flood of 10000 questions is answered within the rate bound',
    { answers, secs });
  a.ping(77);
  check(await until(() => a.pongs.includes(77), 10000) && !b.closed, 'the server carries on: the other page gets its PONG');
  check(b.errors.length === 0, 'the flooding page\'s answers decode', b.errors.slice(0, 3));
  a.close();
  b.close();
  await stopClean(srv);
  await stop(t.proc);
}

async function capture() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weblat-capture-'));
  const rec = path.join(dir, 'run.rec'), json = path.join(dir, 'run.json');
  const cli = need('RECORDER_CLI');
  const cap = await run(cli, ['capture', '-o', rec, '-q', '--', need('WEB_TARGET'), '--threads', '2', '--rate', '5000',
    '--seconds', '2'], 60000);
  check(cap.code === 0, 'recorder capture writes the file', cap.stderr);
  const dump = await run(cli, ['dump', rec, '--format', 'json', '-o', json], 60000);
  check(dump.code === 0, 'recorder dump reads it', dump.stderr);
  const trace = JSON.parse(fs.readFileSync(json, 'utf8'));
  const ends = trace.traceEvents.filter((e) => e.name === 'step' && e.ph === 'E' && !/open/.test(e.cat || '')).length;
  const srv = await startServer([rec, '--port', '0']);
  const p = await Peer.open(srv.port, srv.token);
  check(await until(() => p.names.includes('step') && p.statusMsg && !p.statusMsg.loading, 20000), 'the capture is read');
  const step = p.names.indexOf('step');
  p.askLatency(step);
  const m = await until(() => p.latMsgs.find((x) => x.name === step), 10000);
  check(m && m.known && total(m) === ends && ends > 100, 'a capture file answers with every call of the scope',
    m && { series: total(m), json: ends });
  p.close();
  await stopClean(srv);
  fs.rmSync(dir, { recursive: true, force: true });
}

main(async () => {
  await live();
  await capture();
});
