/* hidden.test.js -- a hidden page (a background tab, CMSG HIDDEN) is sent
 * no events, and is told how many it was not sent; shown again, it gets
 * the recent frames it missed, each once and in order, and the count
 * drops by exactly what those frames carried; shown again with nothing
 * new, it is sent nothing twice (suite web). */
'use strict';
const { startTarget, startServer, stop, check, main, until, quiet, drained } = require('./harness');
const { Peer } = require('./peer');

main(async () => {
  /* The program writes until it is stopped (SIGSTOP: alive, and quiet). */
  const target = await startTarget(['--threads', '2', '--rate', '100000', '--work-ns', '0', '--seconds', '600']);
  const srv = await startServer([String(target.pid), '--port', '0', '--client-queue', '512', '--client-timeout', '3600']);
  const p = await Peer.open(srv.port, srv.token);
  const shown = await Peer.open(srv.port, srv.token);   /* a page visible throughout */
  const toggler = await Peer.open(srv.port, srv.token); /* a page that hides and shows without end */
  try {
    check(await until(() => p.events > 0, 60000), 'the page gets events', p.events);
    for (let i = 0; i < 2000; i++) toggler.setHidden(i % 2 === 0);   /* ends shown */
    p.setHidden(true);
    /* Hidden, and what was queued before has arrived. */
    check(await until(() => p.statusMsg && p.statusMsg.hidden > 0 && p.statusMsg.queued === 0, 60000),
      'once hidden, STATUS counts the events not sent', p.statusMsg);
    const s1 = p.statusMsg, got1 = p.statusEvents;
    /* Far more than the history a page is replayed (half its 512 KB queue). */
    check(await until(() => p.statusMsg.hidden >= s1.hidden + 300000, 120000),
      'the program went on writing while the page was hidden', { was: s1.hidden, now: p.statusMsg.hidden });
    const s2 = p.statusMsg;
    check(s2.sent === s1.sent && p.statusEvents === got1 && s2.offered === s1.offered,
      'nothing is sent to a hidden page, nor offered', { before: s1.sent, after: s2.sent, got: p.statusEvents });

    process.kill(target.pid, 'SIGSTOP');
    await quiet(p);
    check(await drained(shown), 'the visible page drains');
    check(await drained(toggler), 'the page that hid and showed 1000 times drains');
    const s3 = p.statusMsg;
    check(s3.hidden > 0 && s3.offered === s3.sent + s3.thinned, 'hidden: offered = sent + thinned, the rest counted hidden', s3);
    const framesBefore = p.seqs.length;
    p.setHidden(false);
    check(await until(() => p.statusMsg.sent > s3.sent, 60000) && await drained(p),
      'shown again, the page gets frames although the program is quiet', p.statusMsg);
    const s4 = p.statusMsg;
    const replayed = s4.offered - s3.offered;
    check(replayed > 0 && s3.hidden - s4.hidden === replayed,
      'the hidden count drops by exactly the events of the frames replayed', { hiddenBefore: s3.hidden, hiddenAfter: s4.hidden, replayed });
    check(s4.hidden > 0, 'what the history no longer holds stays counted hidden', s4);
    check(s4.offered === s4.sent + s4.thinned && p.statusEvents === s4.sent,
      'the page received exactly what was sent, offered = sent + thinned', { offered: s4.offered, sent: s4.sent, thinned: s4.thinned, got: p.statusEvents });
    /* Hidden and shown again with nothing new: nothing is sent twice. */
    p.setHidden(true);
    p.setHidden(false);
    p.ping(7);
    check(await until(() => p.pongs.includes(7), 60000) && await drained(p), 'hidden and shown again at once');
    const s5 = p.statusMsg;
    check(s5.sent === s4.sent && s5.hidden === s4.hidden, 'a page shown again is sent only frames it has not had',
      { sentBefore: s4.sent, sentAfter: s5.sent, hiddenBefore: s4.hidden, hiddenAfter: s5.hidden });
    const seqs = p.seqs;
    check(seqs.length > framesBefore && seqs.every((q, i) => i === 0 || q > seqs[i - 1]),
      'no frame twice, none out of order', seqs.slice(Math.max(0, framesBefore - 3), framesBefore + 3));
    /* The page that stayed visible: all it was offered, nothing hidden. */
    const v = shown.statusMsg;
    check(v.hidden === 0 && v.offered === v.sent + v.thinned && shown.statusEvents === v.sent,
      'a page that stayed visible was offered every frame', v);
    /* Hidden and shown a thousand times while the program wrote: every
     * frame it got came once and in order, and its counts balance. */
    const t = toggler.statusMsg, ts = toggler.seqs;
    check(ts.length > 0 && ts.every((q, i) => i === 0 || q > ts[i - 1]), 'the toggling page got no frame twice, none out of order',
      ts.slice(0, 8));
    check(t.offered === t.sent + t.thinned && toggler.statusEvents === t.sent && t.hidden >= 0 && t.hidden < 2 ** 53,
      'the toggling page: offered = sent + thinned, and a sane hidden count', t);
    check([p, shown, toggler].every((x) => x.errors.length === 0), 'every message decodes',
      p.errors.concat(shown.errors, toggler.errors).slice(0, 3));
  } finally {
    p.close();
    shown.close();
    toggler.close();
    process.kill(target.pid, 'SIGCONT');   /* stopped, it would not take SIGTERM */
  }
  check(await stop(srv.proc) === 0, 'recorder-web exits 0 on SIGTERM');
  check(!/runtime error|Sanitizer/.test(srv.stderr.text), 'no sanitizer report from recorder-web');
  await stop(target.proc);
});
