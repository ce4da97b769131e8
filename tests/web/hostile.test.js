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

/* One round: a hostile writer watched by a recorder-web with EXTRA options;
 * every check says which round it is in. */
async function round(extra) {
  const tag = extra.length ? ` (${extra.join(' ')})` : '';
  const w = await startTarget(['--rounds', '200'], {}, 'HOSTILE_WRITER');
  const done = lineMatching(w.proc, /^done$/, 120000, 'hostile_writer');
  const srv = await startServer([String(w.pid), '--port', '0', ...extra]);
  const p = await Peer.open(srv.port, srv.token);
  await done;
  await quiet(p);
  const st = p.statusMsg;
  check(p.helloMsg && p.helloMsg.pid === w.pid, 'the page gets HELLO' + tag, p.helloMsg);
  check(p.events > 0, 'events reach the page' + tag, p.events);
  check(p.errors.length === 0, 'every message decodes' + tag, p.errors.slice(0, 3));
  const limit = 2 ** 62 * (1 + 1e-9);   /* +-2^62, give or take double rounding */
  check(p.badTimes === 0 && p.tMin >= -limit && p.tMax <= limit,
    'every event time is a number within +-2^62 ns' + tag, { min: p.tMin, max: p.tMax, bad: p.badTimes });
  const counts = st ? ['events', 'overwritten', 'dropped', 'bad', 'unsent', 'offered', 'thinned', 'sent'].map((k) => st[k]) : [];
  check(st && counts.every((v) => Number.isFinite(v) && v >= 0 && v <= 2 ** 64), 'STATUS counts are whole numbers below 2^64' + tag, st);
  /* A head no writer can have reached (docs/format.md, "Loss") is bad
   * data, counted once: never billions of lost entries, never wrapped. */
  check(st && st.bad >= 1 && st.overwritten < 2 ** 40,
    'the head jumps count as bad data, not as billions of entries lost' + tag, st && { bad: st.bad, overwritten: st.overwritten });
  check(!/runtime error|AddressSanitizer|LeakSanitizer/.test(srv.stderr.text), 'no sanitizer report from recorder-web' + tag,
    srv.stderr.text.split('\n').filter((l) => /runtime error|Sanitizer/.test(l)).slice(0, 5).join('\n'));
  check(!extra.length || (st && st.spills >= 1 && st.spillsFull <= st.spills),
    'the spill thread read the rings, and STATUS says how often' + tag, st && { spills: st.spills, full: st.spillsFull });
  check(srv.proc.exitCode === null, 'recorder-web is still running' + tag);
  const again = await Peer.open(srv.port, srv.token);
  check(await until(() => again.helloMsg && again.statusMsg, 20000), 'a new page is still served' + tag);
  again.close();
  p.close();
  check(await stop(srv.proc) === 0, 'recorder-web exits 0 on SIGTERM' + tag);
  check(!/runtime error|Sanitizer/.test(srv.stderr.text), 'no sanitizer report at exit either' + tag);
  await stop(w.proc);
}

/* Then again with every ring read by the spill thread (--spill-ms 0, see
 * viewer-web/spill.h), whose copies the reader takes instead of its own
 * reads: the same numbers must meet the same checks on that path too. */
main(async () => {
  await round([]);
  await round(['--spill-ms', '0']);
});
