/* sec_web.js -- recorder-web against a hostile segment or name, for
 * tests/security/sec_test.py.
 *
 *   node sec_web.js RECORDER_WEB TARGET MODE HOLDER_PID HOLDER_PATH
 *
 * MODE watch:    start recorder-web on TARGET, connect a WebSocket client
 *                (tests/web/wsclient.js), receive messages, ping it and get
 *                the pong, download the snapshot (printed as "names: ..."),
 *                and check the server is still running; SIGTERM ends it
 *                with status 0.
 * MODE file:     TARGET is a capture file: the same, and once it is read,
 *                windows of it asked for (RANGE, docs/web.md "Saved
 *                traces"): the whole of it, all of time, an inverted one,
 *                one past its end; each must be answered.
 * MODE truncate: the same, and in between send SIGUSR1 to HOLDER_PID
 *                (craft_seg --truncate-to) and wait for HOLDER_PATH to
 *                shrink; then the server must still answer the old client's
 *                ping, a new client, the page and the snapshot.
 * Prints ok/FAIL lines; exits 1 if any check failed.  Sanitizer reports on
 * the server's stderr fail. */
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');
const net = require('net');
const readline = require('readline');
const { connect } = require(path.join(__dirname, '..', 'web', 'wsclient.js'));

const [WEB, TARGET, MODE, HOLDER_PID, HOLDER_PATH] = process.argv.slice(2);
let failures = 0;
function check(cond, what, detail) {
  console.log((cond ? 'ok   ' : 'FAIL ') + what + (!cond && detail !== undefined ? ': ' + detail : ''));
  if (!cond) failures++;
  return cond;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(cond, ms) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await cond();
    if (v || Date.now() > end) return v;
    await sleep(50);
  }
}

function request(port, p) {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    const chunks = [];
    sock.on('connect', () => sock.write(`GET ${p} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`));
    sock.on('data', (d) => chunks.push(d));
    sock.on('error', () => resolve({ status: 0, body: Buffer.alloc(0) }));
    sock.on('close', () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      const head = end < 0 ? all.toString() : all.subarray(0, end).toString();
      let body = end < 0 ? Buffer.alloc(0) : all.subarray(end + 4);
      if (/transfer-encoding: chunked/i.test(head)) {
        const parts = [];
        let off = 0;
        for (;;) {
          const eol = body.indexOf('\r\n', off);
          if (eol < 0) break;
          const n = parseInt(body.subarray(off, eol).toString(), 16);
          if (!n) break;
          parts.push(body.subarray(eol + 2, eol + 2 + n));
          off = eol + 2 + n + 2;
        }
        body = Buffer.concat(parts);
      }
      resolve({ status: Number((head.match(/^HTTP\/1\.[01] (\d+)/) || [])[1] || 0), body });
    });
    sock.setTimeout(30000, () => sock.destroy());
  });
}

async function ping(ws, nonce) {
  let got = false;
  const onMsg = (m) => { if (m[0] === 0x07 && m.length >= 5 && m.readUInt32LE(1) === nonce) got = true; };
  ws.on('message', onMsg);
  const b = Buffer.alloc(5);
  b[0] = 0x82;
  b.writeUInt32LE(nonce, 1);
  ws.send(b);
  await until(() => got || ws.closed, 20000);
  ws.removeListener('message', onMsg);
  return got;
}

/* Once the file is read (a STATUS without the loading flag), each
 * window asked is answered: a RANGE message (0x0a) with its id. */
async function windows(ws) {
  let loaded = false;
  const got = new Set();
  const onMsg = (m) => {
    if (m[0] === 0x06 && m.length > 9 && !(m[9] & 8)) loaded = true;
    if (m[0] === 0x0a && m.length > 1) got.add(m[1]);
  };
  ws.on('message', onMsg);
  check(await until(() => loaded || ws.closed, 60000), 'the file is read');
  const asks = [[0, 1e12], [-1e300, 1e300], [5e9, 1e9], [1e15, 2e15], [0, 1e6]];
  let id = 1;
  for (const [a, b] of asks) {
    const q = Buffer.alloc(21);
    q[0] = 0x84;
    q.writeUInt32LE(id, 1);
    q.writeDoubleLE(a, 5);
    q.writeDoubleLE(b, 13);
    ws.send(q);
    const want = id++;
    check(await until(() => got.has(want) || ws.closed, 60000), `window [${a}, ${b}] answered`);
  }
  ws.removeListener('message', onMsg);
}

async function client(port, token, what) {
  const r = await connect({ port, path: '/ws?t=' + token, origin: 'http://127.0.0.1:' + port });
  if (!check(r.status === 101 && r.ws, `${what}: WebSocket upgrade`, r.status)) return null;
  await until(() => r.ws.messages >= 2 || r.ws.closed, 20000);
  check(r.ws.messages >= 2, `${what}: receives messages`, r.ws.messages);
  return r.ws;
}

async function main() {
  const srv = spawn(WEB, [TARGET, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  srv.stderr.on('data', (d) => { stderr += d; });
  let exited = null;
  srv.on('exit', (code, sig) => { exited = sig ? 128 : code; });
  const url = await new Promise((resolve) => {
    const rl = readline.createInterface({ input: srv.stdout });
    rl.on('line', (l) => { if (/^http:\/\//.test(l)) resolve(l.trim()); });
    srv.on('exit', () => resolve(null));
    setTimeout(() => resolve(null), 20000);
  });
  if (!check(url !== null, 'recorder-web started and printed its URL', stderr.trim())) return finish(srv, () => stderr);
  const u = new URL(url);
  const port = Number(u.port), token = u.searchParams.get('t');

  const ws = await client(port, token, 'first client');
  if (ws) check(await ping(ws, 0x1234), 'first client: ping answered');
  if (ws && MODE === 'file') await windows(ws);
  if (MODE === 'truncate') {
    process.kill(Number(HOLDER_PID), 'SIGUSR1');
    const shrunk = await until(() => { try { return fs.statSync(HOLDER_PATH).size <= 4096; } catch (e) { return false; } }, 20000);
    check(shrunk, 'the segment was truncated under recorder-web');
    await sleep(500);   /* some flushes and drains over the shrunk file */
    check(exited === null, 'recorder-web is still running after the truncation', `exit ${exited}: ${stderr.trim()}`);
    if (ws && !ws.closed) check(await ping(ws, 0x5678), 'first client: ping answered after the truncation');
    const ws2 = await client(port, token, 'a new client after the truncation');
    if (ws2) {
      check(await ping(ws2, 0x9abc), 'new client: ping answered');
      ws2.close();
    }
  } else {
    await sleep(300);
  }
  const page = await request(port, '/?t=' + token);
  check(page.status === 200, 'the page is served', page.status);
  const snap = await request(port, '/trace.json?t=' + token);
  check(snap.status === 200, 'the snapshot is served', snap.status);
  try {
    const doc = JSON.parse(snap.body.toString());
    const names = new Set((doc.traceEvents || []).map((e) => e.name).filter((n) => n));
    console.log('names: ' + [...names].sort().join(','));
    check(true, 'the snapshot is JSON');
  } catch (e) {
    check(false, 'the snapshot is JSON', e.message);
  }
  check(exited === null, 'recorder-web is still running', `exit ${exited}: ${stderr.trim()}`);
  if (ws) ws.close();
  return finish(srv, () => stderr);
}

async function finish(srv, err) {
  if (srv.exitCode === null && srv.signalCode === null) {
    const done = new Promise((r) => srv.once('exit', (code, sig) => r(sig ? 128 : code)));
    srv.kill('SIGTERM');
    const code = await Promise.race([done, sleep(20000).then(() => 'hung')]);
    check(code === 0, 'SIGTERM stops recorder-web with status 0', code);
    if (code === 'hung') srv.kill('SIGKILL');
  }
  const bad = ['AddressSanitizer', 'UndefinedBehaviorSanitizer', 'LeakSanitizer', 'runtime error:'].filter((m) => err().includes(m));
  check(bad.length === 0, 'no sanitizer report', err().slice(-2000));
  console.log(`${failures} failed`);
  process.exit(failures ? 1 : 0);
}

main().catch((e) => { console.log('FAIL (exception) ' + (e && e.stack ? e.stack : e)); process.exit(1); });
