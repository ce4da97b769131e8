/* downloads.test.js -- snapshot downloads (/trace.json, /trace.pftrace)
 * from clients that never read (suite web).  Each one used to pin its own snapshot (about
 * 120 bytes an event: 20 of them took recorder-web from 103 MB to 2.5 GB).
 * Now downloads share the newest snapshot (at most two are held), at most
 * --max-downloads run at once (the next get 503 and a message), and a
 * download whose client takes nothing for --download-timeout seconds is
 * cut.  Asserts, on VmRSS only: memory stays under the model plus two
 * snapshots plus a fixed overhead while the downloads hang; a normal
 * page is served meanwhile; a normal download completes once the stuck
 * ones are cut, and holds every event it says it has.  The Perfetto
 * protobuf download (/trace.pftrace) of the same snapshot decodes with the
 * tests' own decoder (tests/perfetto/pftrace.py) and holds exactly the
 * JSON's events. */
'use strict';
const net = require('net');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFile } = require('child_process');
const { startTarget, startServer, stop, check, main, until, sleep, request, rssKb, sanitizer, lineMatching } = require('./harness');
const { Peer } = require('./peer');

const STUCK = 12;          /* downloads that never read */
const MAX = 4;             /* --max-downloads */
const TIMEOUT_S = 15;      /* --download-timeout: longer than opening them all takes */

/* A download that reads the response head (or nothing) and then stops
 * reading.  Resolves once the head arrived (at once with readHead false);
 * release() reads again, and then status(), ended() and bodyBytes() say
 * what it got before the server let go. */
function stuckDownload(port, token, readHead) {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0), head = null, ended = false, released = false, bodyAt = 0;
    const out = {
      sock,
      head: () => head,
      status: () => (head ? Number(head.split(' ')[1]) : 0),
      ended: () => ended,
      bodyBytes: () => buf.length - bodyAt,
      release: () => { released = true; sock.resume(); },
    };
    sock.on('connect', () => {
      sock.write(`GET /trace.json?t=${token} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      if (!readHead) { sock.pause(); resolve(out); }
    });
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (head === null && end >= 0) {
        head = buf.subarray(0, end).toString();
        bodyAt = end + 4;
        if (!released) sock.pause();     /* the body stays in the socket buffers, unread */
        resolve(out);
      }
    });
    sock.on('end', () => { ended = true; });
    sock.on('close', () => { ended = true; });
    sock.on('error', () => { ended = true; });
  });
}

/* The tests' decoder on the two downloads (pftrace_check.py): about 20 s
 * of Python for 600 000 events, so it runs while the test waits for the
 * stuck downloads' timeout, not before it. */
function decodeLater(pfBody, jsonBody) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pftrace-web-'));
  fs.writeFileSync(path.join(dir, 't.pftrace'), pfBody);
  fs.writeFileSync(path.join(dir, 't.json'), jsonBody);
  return new Promise((resolve) => {
    execFile('/usr/bin/python3', [path.join(__dirname, 'pftrace_check.py'), path.join(dir, 't.pftrace'),
      path.join(dir, 't.json')], { maxBuffer: 1 << 24 }, (err, stdout) => {
      fs.rmSync(dir, { recursive: true, force: true });
      if (err) return resolve({ error: String(err) });
      try { resolve(JSON.parse(stdout.toString())); } catch (e) { resolve({ error: String(e) }); }
    });
  });
}

main(async () => {
  /* A program that records 600 000 events and then goes quiet: the model
   * and its log stop growing, so what grows after is the downloads'.
   * Rings of 512 Ki entries hold them all whatever the reader's speed:
   * the snapshot is the same size in every build. */
  const target = await startTarget(['--threads', '4', '--rate', '100000', '--work-ns', '0', '--events', '150000'],
    { RECORDER_RING_KB: '8192' });
  const quietLine = lineMatching(target.proc, /^done$/, 120000, 'web_target');
  const asanEnv = { ASAN_OPTIONS: (process.env.ASAN_OPTIONS ? process.env.ASAN_OPTIONS + ':' : '') + 'quarantine_size_mb=16' };
  const srv = await startServer([String(target.pid), '--port', '0', '--log-events', '600000',
    '--max-downloads', String(MAX), '--download-timeout', String(TIMEOUT_S)], asanEnv);
  const { port, token } = srv;
  await quietLine;

  /* One normal download: the snapshot's size, and what it says it holds;
   * then the same as Perfetto's protobuf.  Each format's snapshot is made
   * when asked for, so the two hold the same events only if the server
   * read nothing in between (it may still be reading the program's last
   * events): asked again until their X-Recorder-Snapshot-Events agree. */
  const snapEvents = (r) => { const m = /x-recorder-snapshot-events:\s*(\d+)/i.exec(r.head || ''); return m ? Number(m[1]) : -1; };
  let first = null, pf = null;
  await until(async () => {
    first = await request(port, '/trace.json?t=' + token);
    pf = await request(port, '/trace.pftrace?t=' + token);
    return first.status !== 200 || pf.status !== 200 || (snapEvents(first) > 0 && snapEvents(first) === snapEvents(pf));
  }, 300000, 2500);
  check(first.status === 200, 'a normal download: 200', first.status);
  const S = first.body.length;
  let trace = null;
  try { trace = JSON.parse(first.body.toString()); } catch (e) { /* checked below */ }
  const other = trace && trace.otherData && trace.otherData.recorder;
  check(other && trace.traceEvents.length > 100000, 'it is JSON with the events', trace && trace.traceEvents.length);

  /* The protobuf: decoded by the tests' decoder, the same events as the
   * JSON, a third of its size or less (every packet names its machine). */
  check(snapEvents(first) > 0 && snapEvents(first) === snapEvents(pf), 'both downloads say they hold the same events',
    [snapEvents(first), snapEvents(pf)]);
  check(pf.status === 200 && /filename="recorder-\d+\.pftrace"/.test(pf.head) && /x-recorder-snapshot-age-ms:/i.test(pf.head),
    '/trace.pftrace: 200, named .pftrace, with the snapshot\'s age', pf.head);
  // every packet carries the machine it was recorded on: 7 bytes of about 18 (docs/scale.md, "Cost")
  check(pf.body.length * 3 < S, `a third of the JSON's size or less (${pf.body.length} vs ${S} bytes)`);
  await sleep(500);
  const rss0 = rssKb(srv.proc.pid);
  const san = sanitizer(srv.proc.pid);
  console.log(`snapshot ${(S / 1048576).toFixed(1)} MB, recorder-web RSS ${rss0} kB before the stuck downloads (${san || 'no sanitizer'})`);

  /* Stuck downloads, one after the other, each after the previous got its
   * head (so each would have made a snapshot of its own); half read the
   * head, half nothing at all. */
  const stuck = [];
  let maxRss = rss0;
  for (let i = 0; i < STUCK; i++) {
    const d = await Promise.race([stuckDownload(port, token, i % 2 === 0), sleep(60000).then(() => null)]);
    if (!d) continue;
    stuck.push(d);
    await sleep(100);
    maxRss = Math.max(maxRss, rssKb(srv.proc.pid));
  }
  /* While they hang: a page is served. */
  const page = await request(port, '/?t=' + token);
  check(page.status === 200, 'the page is still served while downloads hang', page.status);
  const peer = await Peer.open(port, token);
  check(await until(() => peer.helloMsg && peer.statusMsg && peer.lanes.size >= 4, 20000), 'a WebSocket page is still served');
  peer.close();
  const busy = await request(port, '/trace.json?t=' + token);
  check(busy.status === 503 && /too many downloads/.test(busy.body.toString()) && /retry-after:/i.test(busy.head),
    `past ${MAX} downloads at once: 503, Retry-After, and a message`, { status: busy.status, body: busy.body.toString().slice(0, 200) });
  maxRss = Math.max(maxRss, rssKb(srv.proc.pid));

  /* The bound: two snapshots (what downloads may hold at once) and a fixed
   * 64 MB for the downloads' send buffers and the allocator; under the
   * sanitizers the allocator's own overhead gets room too. */
  const slack = san === 'tsan' ? 2.5 : san === 'asan' ? 1.5 : 1;
  const bound = rss0 + slack * (2 * S / 1024 + 64 * 1024);
  console.log(`RSS ${rss0} -> max ${maxRss} kB with ${stuck.length} stuck downloads; bound ${Math.round(bound)} kB`);
  check(maxRss < bound, 'recorder-web memory stays under two snapshots plus a fixed overhead', { rss0, maxRss, bound: Math.round(bound), S });

  /* The stuck ones that were let in are cut after --download-timeout
   * (the server lets go of their snapshot); the rest were refused.  The
   * cut is seen, not waited out: a download asked for meanwhile gets 503
   * until the server has let go of them, and 200 from then on. */
  const decoded = decodeLater(pf.body, first.body);
  let again = null;
  await until(async () => {
    again = await request(port, '/trace.json?t=' + token);
    return again.status !== 503;
  }, (TIMEOUT_S + 60) * 1000, 500);
  for (const d of stuck) d.release();
  await until(() => stuck.every((d) => d.status() === 503 || d.ended()), 30000, 250);
  const took = stuck.filter((d) => d.status() === 200), refused = stuck.filter((d) => d.status() === 503);
  check(took.length === MAX && refused.length === STUCK - MAX, `${MAX} stuck downloads were let in, the other ${STUCK - MAX} refused`,
    stuck.map((d) => d.status()));
  check(took.every((d) => d.ended() && d.bodyBytes() < S), 'the ones let in were cut short of the snapshot (the client sees it short)',
    took.map((d) => [d.ended(), d.bodyBytes()]));
  let t2 = null;
  try { t2 = JSON.parse(again.body.toString()); } catch (e) { /* checked below */ }
  check(again.status === 200 && t2 && t2.traceEvents.length >= trace.traceEvents.length,
    'after that, a normal download completes, with every event', again.status);
  const rss2 = rssKb(srv.proc.pid);
  check(rss2 < bound, 'memory went back under the bound', { rss2, bound: Math.round(bound) });
  for (const d of stuck) d.sock.destroy();
  check(await stop(srv.proc) === 0, 'recorder-web exits 0 on SIGTERM');

  /* The protobuf against the JSON (started above). */
  const got = await decoded;
  check(got && !got.error, 'the .pftrace decodes (tests/perfetto/pftrace.py)', got && got.error);
  check(got && got.counts && got.counts.slices === other.written.slices && got.counts.slices > 100000,
    'it holds the JSON\'s slices', got && [got.counts, got.json]);
  check(got && got.diffs && got.diffs.length === 0, 'event for event the JSON\'s', got && got.diffs && got.diffs.slice(0, 5));
  check(got && got.snapshot && [1, 3, 6].every((c) => got.snapshot.includes(c)) && got.mono_ok,
    'with a clock snapshot (REALTIME, MONOTONIC, BOOTTIME) whose MONOTONIC is the program\'s clock', got && [got.snapshot, got.mono_ok]);

  await stop(target.proc);
});
