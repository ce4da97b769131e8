/* flood.test.js -- a program that starts and ends a thousand threads a
 * second (thread_flood.c), watched by a page (suite web).  recorder-web
 * keeps a bounded lane table and sends THREADS as deltas: the THREADS
 * bytes a page gets grow with the number of threads, not with lanes x
 * changes; the page never holds more than LANES_CAP lanes; what was
 * retired or folded is counted, not dropped silently; and recorder-web's
 * memory stays within the analysis model's own per-thread cost. */
'use strict';
const { startTarget, startServer, stop, check, main, until, quiet, lineMatching, rssKb, sanitizer, need } = require('./harness');
const { Peer } = require('./peer');

const LANES_MAX = 4096, LANES_CAP = LANES_MAX + 1024;   /* viewer-web/lanes.h */
/* At 1000 a second: 10 s.  Under TSan threads start five times slower:
 * fewer, still more than the table holds. */
const tsan = /libtsan/.test(require('child_process').execFileSync('ldd', [need('THREAD_FLOOD')]).toString());
const THREADS = tsan ? 6000 : 10000;

main(async () => {
  const fl = await startTarget(['--rate', '1000', '--seconds', '300', '--count', String(THREADS)], {}, 'THREAD_FLOOD');
  const done = lineMatching(fl.proc, /^done (\d+)/, 400000, 'thread_flood');
  const srv = await startServer([String(fl.pid), '--port', '0']);
  const rss0 = rssKb(srv.proc.pid);
  const p = await Peer.open(srv.port, srv.token);
  let threadsBytes = 0, maxLanes = 0;
  p.ws.on('message', (m) => {
    if (m[0] === 0x03) threadsBytes += m.length;
    if (p.lanes.size > maxLanes) maxLanes = p.lanes.size;
  });
  const started = Number((await done)[1]);
  await quiet(p);
  /* Every lane the server announced and retired is told: the page's
   * table ends at the server's, its retired count at the server's. */
  await until(() => p.statusMsg && p.lanes.size <= LANES_MAX, 20000);
  const rss = rssKb(srv.proc.pid);
  const st = p.statusMsg;
  console.log(`threads started ${started}, lanes announced ${p.laneIds.size}, on the page ${p.lanes.size} (max ${maxLanes}), ` +
    `retired ${p.retiredTotal}, folded ${p.foldedTotal}, THREADS ${threadsBytes} bytes in ${p.threadsMsgs} messages, ` +
    `events ${p.events}, without a lane ${st && st.nolane}, RSS ${rss0} -> ${rss} kB`);

  check(started === THREADS, 'the program started thousands of threads', started);
  check(p.laneIds.size > LANES_CAP, 'the page was told of more lanes than the table keeps', p.laneIds.size);
  /* Proportional to changes: a thread's lane is announced, marked exited
   * and retired, a few dozen bytes each; plus one whole table at joining.
   * Sending the whole table at every change (the old protocol) took
   * about 13 KB per thread for 90 000 threads. */
  check(threadsBytes < 256 * started + 64 * LANES_CAP, 'THREADS bytes grow with the number of threads, not lanes x changes',
    { threadsBytes, perThread: threadsBytes / started });
  check(maxLanes <= LANES_CAP && p.lanes.size <= LANES_MAX, 'the page never holds more lanes than the bound', { maxLanes, now: p.lanes.size });
  check(p.retiredTotal > 0 && p.lanes.size + p.retiredTotal + p.foldedTotal >= p.laneIds.size,
    'every lane announced is on the page or counted as retired', { onPage: p.lanes.size, retired: p.retiredTotal, announced: p.laneIds.size });
  check(p.errors.length === 0, 'every message decodes', p.errors.slice(0, 3));
  /* The analysis model keeps a record per thread generation (up to
   * REC_MAX_RECORDS), measured at about 8 KB each under this flood; the
   * lanes add nothing past their bound. */
  const san = sanitizer(srv.proc.pid), slack = san === 'tsan' ? 4 : san === 'asan' ? 2 : 1;
  check(rss < slack * (96 * 1024 + 12 * Math.min(started, 65535)), 'recorder-web memory within the model per-thread cost',
    { rss0, rss, started, sanitizer: san });
  const late = await Peer.open(srv.port, srv.token);
  check(await until(() => late.threadsMsgs > 0 && late.statusMsg, 20000) && late.lanes.size <= LANES_MAX,
    'a page that joins after the flood gets the bounded table', late.lanes.size);
  check(late.retiredTotal === p.retiredTotal, 'and the same retired count', { late: late.retiredTotal, first: p.retiredTotal });
  late.close();
  p.close();
  check(await stop(srv.proc) === 0, 'recorder-web exits 0 on SIGTERM');
  await stop(fl.proc);
});
