/* protocol.test.js -- recorder-web over HTTP and WebSocket, no browser
 * (suite web): the token, the Host and Origin checks, path traversal,
 * the page and the snapshot, two pages at once, bad client frames that
 * close only their own connection, and the command line's errors.
 *
 * Needs RECORDER_WEB and WEB_TARGET (meson passes them). */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { startTarget, startServer, run, stop, request, check, main, until, need } = require('./harness');
const { connect } = require('./wsclient');
const { Peer } = require('./peer');
const { PROTOCOL_VERSION, SUBPROTOCOL } = require(path.join(__dirname, '../../viewer-web/page/js/protocol.js'));

main(async () => {
  const target = await startTarget(['--threads', '3', '--rate', '20000', '--work-ns', '1000']);
  const srv = await startServer([String(target.pid), '--port', '0']);
  const { port, token } = srv;
  check(/^http:\/\/127\.0\.0\.1:\d+\/\?t=[0-9a-f]{32}$/.test(srv.url), 'the URL is on 127.0.0.1 with a 128-bit token', srv.url);

  /* ---- HTTP: the token ---- */
  const page = await request(port, '/?t=' + token);
  check(page.status === 200, 'GET / with the token: 200', page.status);
  check(/content-type: text\/html/i.test(page.head), 'the page is HTML');
  check(/content-security-policy: default-src 'none'; script-src 'sha256-/i.test(page.head), 'the page has a strict CSP');
  check(page.body.includes('<canvas id="tl-canvas">') && !/https?:\/\//i.test(page.body.toString()),
    'the page is self-contained (no URL to fetch anything from)');
  for (const [p, why] of [
    ['/', 'no token'],
    ['/?t=', 'empty token'],
    ['/?t=' + token.slice(0, 31), 'a token one character short'],
    ['/?t=' + token.replace(/^./, (c) => (c === '0' ? '1' : '0')), 'a wrong token'],
    ['/?x=' + token, 'the token under another name'],
    ['/trace.json', 'the snapshot without a token'],
    ['/trace.pftrace', 'the protobuf snapshot without a token'],
    ['/index.html?t=' + token.toUpperCase().replace(/[0-9]/g, 'Z'), 'a mangled token'],
  ]) {
    const r = await request(port, p);
    check(r.status === 403, `403 for ${why}`, r.status);
  }
  const host = await request(port, '/?t=' + token, { host: 'evil.example:' + port });
  check(host.status === 403, '403 for a foreign Host (DNS rebinding)', host.status);
  const post = await request(port, '/?t=' + token, { method: 'POST', headers: { 'Content-Length': '0' } });
  check(post.status !== 200, 'POST is not served', post.status);

  /* ---- HTTP: nothing but the two names ---- */
  for (const p of [
    '/../../../../etc/passwd', '/%2e%2e/%2e%2e/%2e%2e/etc/passwd', '/index.html/../../../etc/passwd',
    '//etc/passwd', '/..%2f..%2f..%2fetc%2fpasswd', '/page/index.html', '/js/app.js', '/style.css',
    '/main.c', '/trace.json/../../etc/passwd', '/%00', '/index.html%00.json', '/.%2e/.%2e/etc/passwd',
  ]) {
    /* lws decodes and collapses the path first ("/%00" is "/"): the
     * answer may be the page itself, but never anything else. */
    const r = await request(port, p + (p.includes('?') ? '&' : '?') + 't=' + token);
    const ok = r.status === 200 ? r.body.equals(page.body) : true;
    check(ok && !r.body.toString().includes('root:'), `nothing but the page: ${p}`, r.status);
  }

  /* ---- WebSocket: token and Origin ---- */
  const wsPath = '/ws?t=' + token;
  const own = 'http://127.0.0.1:' + port;
  const refused = [
    [{ path: '/ws' }, 'no token'],
    [{ path: '/ws?t=' + '0'.repeat(32) }, 'a wrong token'],
    [{ path: wsPath, origin: 'http://evil.example' }, 'a foreign Origin'],
    [{ path: wsPath, origin: 'http://127.0.0.1:' + (port === 1 ? 2 : port - 1) }, 'another port on loopback'],
    [{ path: wsPath, origin: 'null' }, 'Origin: null'],
    [{ path: wsPath, origin: 'https://127.0.0.1:' + port }, 'https: origin'],
    [{ path: wsPath, origin: own, host: 'evil.example:' + port }, 'a foreign Host'],
    /* The page's sub-protocol is required: lws alone would take an upgrade
     * that names none as ours (issue 18, item 6). */
    [{ path: wsPath, protocol: null }, 'no sub-protocol'],
    [{ path: wsPath, protocol: `recorder-web.v${PROTOCOL_VERSION - 1}` }, 'an older version'],
    [{ path: wsPath, protocol: 'chat, superchat' }, 'only other sub-protocols'],
    [{ path: wsPath, protocol: 'recorder-web.v50' }, 'a sub-protocol that only starts like ours'],
  ];
  for (const [o, why] of refused) {
    const r = await connect({ port, ...o });
    check(r.status !== 101, `upgrade refused: ${why}`, r.status);
    if (r.ws) r.ws.close();
  }
  const offered = await connect({ port, path: wsPath, protocol: `chat, ${SUBPROTOCOL}` });
  check(offered.status === 101, 'upgrade accepted: ours among others offered', offered.status);
  if (offered.ws) offered.ws.close();
  for (const [origin, host] of [[own], ['http://localhost:' + port, 'localhost:' + port], [undefined]]) {
    const r = await connect({ port, path: wsPath, origin, host });
    check(r.status === 101, `upgrade accepted: Origin ${origin || '(none, not a browser)'}`, r.status);
    if (r.ws) r.ws.close();
  }

  /* ---- two pages at once ---- */
  const a = await Peer.open(port, token, { origin: own });
  const b = await Peer.open(port, token, { origin: own });
  const both = await until(() => [a, b].every((p) => p.helloMsg && p.events > 1000 && p.begun.has('matmul_blk.1')
    && p.statusMsg && p.statusMsg.clients >= 2), 30000);
  check(both, 'two pages both get HELLO, names, lanes and events', { a: a.events, b: b.events });
  for (const [p, n] of [[a, 'first'], [b, 'second']]) {
    check(p.helloMsg && p.helloMsg.pid === target.pid && p.helloMsg.version === PROTOCOL_VERSION, `${n} page: HELLO names the program and protocol ${PROTOCOL_VERSION}`, p.helloMsg);
    const lanes = p.laneNames();
    check(['dispatcher', 'worker-0', 'worker-1', 'worker-2'].every((x) => lanes.includes(x)), `${n} page: a lane per thread`, lanes);
    check(['step', 'layer', 'attention', 'matmul_blk.0', 'dispatch'].every((x) => p.begun.has(x)), `${n} page: scope names`, [...p.begun]);
    check(p.kinds.instant > 0 && p.kinds.counter > 0 && p.kinds.flow > 0, `${n} page: instants, counters and flows`, p.kinds);
    check(p.errors.length === 0, `${n} page: every message decodes`, p.errors);
  }
  const stats = await until(() => a.statsMsg && a.statsMsg.rows.length > 0 && a.statsMsg.nodes.length > 1, 30000);
  check(stats, 'statistics and a call tree arrive', a.statsMsg && { rows: a.statsMsg.rows.length, nodes: a.statsMsg.nodes.length });
  if (stats) {
    const names = a.statsMsg.rows.map((r) => a.names[r.name]);
    check(names.includes('step') && names.includes('matmul_blk.2'), 'the top table names the scopes', names);
  }
  a.setWindow(2);
  check(await until(() => a.statsMsg && a.statsMsg.window === 2, 30000), 'SET_WINDOW switches the statistics window');

  /* ---- bad frames close that connection, and only that one ---- */
  const bad = [
    ['unknown command', (ws) => ws.send(Buffer.from([0x99, 1, 2, 3])), 1008],
    ['empty message', (ws) => ws.send(Buffer.alloc(0)), 1008],
    ['SET_WINDOW out of range', (ws) => ws.send(Buffer.from([0x81, 7])), 1008],
    ['PING too short', (ws) => ws.send(Buffer.from([0x82, 1, 2])), 1008],
    ['HIDDEN neither 0 nor 1', (ws) => ws.send(Buffer.from([0x85, 2])), 1008],
    ['HIDDEN too long', (ws) => ws.send(Buffer.from([0x85, 1, 0])), 1008],
    ['a text frame', (ws) => ws.sendText('hello'), 1003],
    ['a message too long', (ws) => ws.send(Buffer.alloc(200, 0x81)), 1009],
    /* The server closes at the fragment that overflows; the close frame
     * may be lost to the reset our next fragment causes (1006). */
    ['a fragmented message too long', (ws) => { for (let i = 0; i < 4; i++) ws.sendFrame(i ? 0 : 2, Buffer.alloc(20, 1), { fin: i === 3 }); }, null],
    ['a reserved opcode', (ws) => ws.sendFrame(3, Buffer.from([1])), null],
  ];
  for (const [why, send, code] of bad) {
    const c = await Peer.open(port, token, { origin: own });
    await until(() => c.helloMsg, 10000);
    send(c.ws);
    const closed = await c.ws.waitClose(15000).catch(() => null);
    check(closed && (code === null ? closed.code !== 1000 : closed.code === code), `${why}: that connection is closed` + (code ? ` (${code})` : ''), closed);
    const before = b.events, nonce = 1000 + bad.indexOf(why);
    b.ping(nonce);
    const alive = await until(() => b.pongs.includes(nonce) && b.events > before, 20000);
    check(alive && !b.closed, `${why}: the other page carries on`, { pongs: b.pongs, closed: b.closed });
  }
  check(!a.closed, 'the first page is still connected');

  /* ---- the snapshot ---- */
  const snap = await request(port, '/trace.json?t=' + token);
  check(snap.status === 200, 'GET /trace.json: 200', snap.status);
  check(/content-disposition: attachment/i.test(snap.head), 'the snapshot downloads as an attachment');
  let trace = null;
  try { trace = JSON.parse(snap.body.toString()); } catch (e) { check(false, 'the snapshot is JSON', String(e)); }
  if (trace) {
    const ev = trace.traceEvents || [];
    check(Array.isArray(trace.traceEvents) && ev.length > 100, 'the snapshot has traceEvents', ev.length);
    check(ev.some((e) => e.name === 'matmul_blk.3' && (e.ph === 'X' || e.ph === 'B')), 'the snapshot has the scopes');
    check(ev.some((e) => e.ph === 'M' && e.name === 'thread_name' && e.args && e.args.name === 'worker-2'), 'the snapshot names the threads');
    const checker = path.join(__dirname, '../analysis/check_trace.py');
    if (fs.existsSync(checker)) {
      const f = path.join(os.tmpdir(), `recorder-web-snap-${process.pid}.json`);
      fs.writeFileSync(f, snap.body);
      const r = await run('python3', [checker, f], 120000);
      check(r.code === 0, 'the snapshot passes tests/analysis/check_trace.py', r.stdout + r.stderr);
      fs.unlinkSync(f);
    }
  }

  a.close();
  b.close();

  /* ---- the command line ---- */
  const exe = need('RECORDER_WEB');
  const help = await run(exe, ['--help']);
  check(help.code === 0 && /^usage: recorder-web/m.test(help.stdout), '--help: usage, exit 0', help);
  const badopt = await run(exe, ['--frobnicate']);
  check(badopt.code === 2 && /unknown option/.test(badopt.stderr), 'an unknown option: exit 2', badopt);
  const badport = await run(exe, [String(target.pid), '--port', '70000']);
  check(badport.code === 2 && /--port/.test(badport.stderr), 'a bad port number: exit 2', badport);
  const dead = await run(exe, ['2147483646']);
  check(dead.code === 3 && /no process 2147483646/.test(dead.stderr), 'a dead pid: exit 3, says so', dead);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'recorder-web-'));
  const corrupt = path.join(tmp, 'recorder.corrupt');
  fs.writeFileSync(corrupt, Buffer.alloc(65536, 0x5a));
  const cor = await run(exe, [corrupt]);
  check(cor.code === 5 && /not a recorder segment|corrupt/.test(cor.stderr), 'a corrupt segment: exit 5, says so', cor);
  const inuse = await run(exe, [String(target.pid), '--port', String(port)]);
  check(inuse.code === 14 && /in use/.test(inuse.stderr), 'a port in use: exit 14, says so', inuse);
  const badbind = await run(exe, [String(target.pid), '--port', '0', '--bind', 'not-an-address']);
  check(badbind.code === 14 && /not-an-address/.test(badbind.stderr), 'a bad --bind address: exit 14', badbind);
  const wide = await startServer([String(target.pid), '--port', '0', '--bind', '0.0.0.0']);
  /* stderr is another pipe than the URL's stdout: read when it comes. */
  check(await until(() => /warning: listening on 0\.0\.0\.0/.test(wide.stderr.text), 20000),
    '--bind 0.0.0.0 warns on stderr', wide.stderr.text);
  const wideForeign = await connect({ port: wide.port, path: '/ws?t=' + wide.token, origin: 'http://evil.example' });
  check(wideForeign.status !== 101, '--bind 0.0.0.0 still refuses a foreign Origin', wideForeign.status);
  check(await stop(wide.proc) === 0, 'SIGTERM: exit 0');
  fs.rmSync(tmp, { recursive: true, force: true });

  /* A segment name (RECORDER_NAME) works as the target too. */
  const name = 'webtest' + process.pid;
  const named = await startTarget(['--threads', '1', '--rate', '1000'], { RECORDER_NAME: name });
  const byName = await startServer([name, '--port', '0']);
  const pn = await Peer.open(byName.port, byName.token);
  check(await until(() => pn.helloMsg, 20000) && pn.helloMsg.pid === named.pid, 'a segment name selects the program');
  pn.close();
  await stop(byName.proc);
  await stop(named.proc);

  check(await stop(srv.proc) === 0, 'recorder-web exits 0 on SIGTERM');
  await stop(target.proc);
});
