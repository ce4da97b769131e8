/* hostile.test.js -- a program that writes nonsense into its own segment
 * (hostile_writer.c: timestamps at 0 and near 2^64, time running
 * backwards, heads jumping by billions and wrapping past 2^64, absurd
 * generations, tids, counters and flow ids) through recorder-web's
 * drain (suite web).  Under the ASan+UBSan build this is the check that
 * every computation on the segment's numbers is overflow-free: any
 * sanitizer report fails it.  In every build: recorder-web keeps serving,
 * every message decodes, times stay within +-2^62 ns, counts are whole
 * numbers that did not wrap. */
'use strict';
const { startTarget, startServer, stop, check, main, until, quiet, lineMatching } = require('./harness');
const { Peer } = require('./peer');

main(async () => {
  const w = await startTarget(['--rounds', '200'], {}, 'HOSTILE_WRITER');
  const done = lineMatching(w.proc, /^done$/, 120000, 'hostile_writer');
  const srv = await startServer([String(w.pid), '--port', '0']);
  const p = await Peer.open(srv.port, srv.token);
  await done;
  await quiet(p);
  const st = p.statusMsg;
  check(p.helloMsg && p.helloMsg.pid === w.pid, 'the page gets HELLO', p.helloMsg);
  check(p.events > 0, 'events reach the page', p.events);
  check(p.errors.length === 0, 'every message decodes', p.errors.slice(0, 3));
  const limit = 2 ** 62 * (1 + 1e-9);   /* +-2^62, give or take double rounding */
  check(p.badTimes === 0 && p.tMin >= -limit && p.tMax <= limit,
    'every event time is a number within +-2^62 ns', { min: p.tMin, max: p.tMax, bad: p.badTimes });
  const counts = st ? ['events', 'overwritten', 'dropped', 'bad', 'unsent', 'offered', 'thinned', 'sent'].map((k) => st[k]) : [];
  check(st && counts.every((v) => Number.isFinite(v) && v >= 0 && v <= 2 ** 64), 'STATUS counts are whole numbers below 2^64', st);
  /* A head no writer can have reached (docs/format.md, "Loss") is bad
   * data, counted once: never billions of lost entries, never wrapped. */
  check(st && st.bad >= 1 && st.overwritten < 2 ** 40,
    'the head jumps count as bad data, not as billions of entries lost', st && { bad: st.bad, overwritten: st.overwritten });
  check(!/runtime error|AddressSanitizer|LeakSanitizer/.test(srv.stderr.text), 'no sanitizer report from recorder-web',
    srv.stderr.text.split('\n').filter((l) => /runtime error|Sanitizer/.test(l)).slice(0, 5).join('\n'));
  check(srv.proc.exitCode === null, 'recorder-web is still running');
  const again = await Peer.open(srv.port, srv.token);
  check(await until(() => again.helloMsg && again.statusMsg, 20000), 'a new page is still served');
  again.close();
  p.close();
  check(await stop(srv.proc) === 0, 'recorder-web exits 0 on SIGTERM');
  check(!/runtime error|Sanitizer/.test(srv.stderr.text), 'no sanitizer report at exit either');
  await stop(w.proc);
});
