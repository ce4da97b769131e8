/* loss.test.js -- the page says when what it shows is partial (suite
 * browser): lossy_writer.c bursts far past its 4 KiB ring while
 * recorder-web watches, so entries are lost; what it wrote before
 * recorder-web attached is not kept.  The header shows lost and not kept
 * apart; the statistics say "partial: N% decoded" with N from the
 * window's cover, every top-table row is marked, the flame graph too; the
 * lane is hatched where entries were lost, and hovering there says how
 * many.  The "fold layer numbers" switch folds x-0 and x-1 into x-*
 * (counts added) in the table, the flame graph and the timeline's labels.
 * Last, the kept segment is truncated under a second recorder-web: the
 * page says "segment truncated".  Screenshots go to WEB_SCREENSHOTS. */
'use strict';
const fs = require('fs');
const path = require('path');
const { startTarget, startServer, stop, check, main, until, sleep, need, shownText } = require('./harness');
const { launchPage, closeBrowser } = require('./chromium');   /* exits 77 without a browser */

const shots = need('WEB_SCREENSHOTS');
fs.mkdirSync(shots, { recursive: true });

/* format.js's fmtDecoded: whole percents, never 0% nor 100%. */
function decodedText(frac) {
  const pct = 100 * frac;
  if (pct > 0 && pct < 1) return '<1%';
  return (pct > 99 ? 99 : Math.round(pct)) + '%';
}

main(async () => {
  const name = `webloss-${process.pid}-${Date.now() % 1e6}`;
  const segPath = `/dev/shm/recorder.${name}`;
  const target = await startTarget(['--every', '400', '--burst', '4000', '--seconds', '300'],
    { RECORDER_RING_KB: '4', RECORDER_NAME: name, RECORDER_KEEP: '1' }, 'LOSSY_WRITER');
  /* "ready": its first burst lapped the ring, so its start is history, not kept. */
  let srv = await startServer([segPath, '--port', '0']);
  const browser = await launchPage();
  const { page, errors } = browser;
  try {
    await page.goto(srv.url);
    const state = () => page.evaluate(() => window.__recorder.state());
    const up = await until(async () => {
      const s = await state();
      return s.connected && s.lost > 0 && s.notKept > 0 && s.gapsSeen >= 3 && s.partial && s.topRows.includes('x-0') &&
        s.topRows.includes('x-1') && s.flameNodes > 3;
    }, 60000, 200);
    let s = await state();
    check(up, 'the page connects, and entries are lost and not kept', { conn: s.conn, lost: s.lost, notKept: s.notKept,
      gaps: s.gapsSeen, partial: s.partial, rows: s.topRows });

    /* ---- the header: lost and not kept, apart ---- */
    const lostText = await shownText(page, '#m-lost', (t) => t !== '' && t !== '0');
    const notKeptText = await shownText(page, '#m-notkept', (t) => t !== '' && t !== '0');
    check(lostText !== '0' && notKeptText !== '0', 'the header shows lost and not kept', { lostText, notKeptText });
    const lostTip = await page.getAttribute('#m-lost-box', 'title'), notKeptTip = await page.getAttribute('#m-notkept-box', 'title');
    check(/^lost: \d+ entries written since recorder-web attached/.test(lostTip) && /overwritten/.test(lostTip),
      'hovering lost says what it counts', lostTip);
    check(/^not kept: \d+ entries/.test(notKeptTip) && /not a loss/.test(notKeptTip), 'hovering not kept says it is history, not a loss', notKeptTip);

    /* ---- partial statistics: the badge, every row, the flame graph ---- */
    await until(async () => {
      s = await state();
      return s.cover && s.cover.partial && s.partialText === 'partial: ' + decodedText(s.cover.decodedFrac) + ' decoded';
    }, 5000, 100);
    check(s.cover && s.cover.lost > 0 && s.cover.decodedFrac > 0 && s.cover.decodedFrac < 1, 'the window\'s cover says entries were lost', s.cover);
    check(/^partial: (<1|\d{1,2})% decoded$/.test(s.partialText) && s.cover &&
      s.partialText === 'partial: ' + decodedText(s.cover.decodedFrac) + ' decoded',
    'the header says "partial: N% decoded", N from the cover', { text: s.partialText, cover: s.cover });
    const badgeTip = await page.getAttribute('#partial', 'title');
    check(/entries lost/.test(badgeTip) && /decoded/.test(badgeTip), 'hovering the badge says what partial means', badgeTip);
    check(s.topMarked > 0 && s.topMarked === s.tableRows.length, 'every top-table row is marked partial',
      { marked: s.topMarked, rows: s.tableRows.length });
    check(/partial/.test(await shownText(page, '#top-sub', (t) => /partial/.test(t))), 'the top table\'s heading says partial');
    check(/partial/.test(s.flameSub), 'the flame graph says partial', s.flameSub);

    /* ---- the timeline: shifted live frames equal full repaints, with
     * the hatching (its stripes move with the picture) ---- */
    let same = 0, incr = 0, worst = null;
    /* Six incremental frames, however long a loaded machine takes to draw them. */
    for (let i = 0; i < 400 && incr < 6; i++) {
      await sleep(150);
      const r = await page.evaluate(() => window.__recorder.checkRepaint());
      if (r && r.incremental) {
        incr++;
        const bad = r.columns.filter((x) => x >= r.gutter + 8);
        if (bad.length === 0) same++;
        else worst = { columns: bad.slice(0, 10), pixels: r.samples };
      }
    }
    check(incr > 0 && same === incr, 'shifted live frames with gaps equal full repaints', { incremental: incr, equal: same, worst });

    /* ---- where entries were lost, the lane is hatched; hover says how many ---- */
    await page.click('#btn-pause');
    await until(async () => { s = await state(); return s.gaps.visible >= 2 && s.gaps.at !== null; }, 10000, 100);
    const gap = s.gaps.at;
    check(s.gaps.visible >= 2 && gap !== null && gap.lane === 'lossy', 'the lossy lane shows its gaps', s.gaps);
    check(gap !== null && gap.shaded, 'a gap is hatched on the timeline', gap);
    if (gap) {
      await page.mouse.move(gap.x, gap.y);
      await until(async () => / lost here/.test((await page.textContent('#tooltip')) || ''), 5000, 50);
      const tip = (await page.textContent('#tooltip')) || '';
      check(/^[\d.,]+k? entr(y|ies) lost here/.test(tip) && /overwritten/.test(tip) && /lossy/.test(tip),
        'hovering a gap says how many entries were lost there', tip);
      await page.screenshot({ path: path.join(shots, 'loss-gap.png') });
      await page.mouse.move(5, 5);
    }

    /* ---- fold layer numbers ---- */
    await page.click('#fold');
    const folded = await until(async () => {
      s = await state();
      const names = s.tableRows.map((r) => r.name);
      return s.folded && names.includes('x-*') && !names.includes('x-0');
    }, 5000, 100);
    const names = s.tableRows.map((r) => r.name);
    check(folded && !names.includes('x-1') && names.includes('blk.*.attn_q') && names.includes('tick'),
      'folded, the table shows x-* and blk.*.attn_q instead of x-0, x-1, blk.3.attn_q', names);
    const row = (rows, n) => rows.find((r) => r.name === n);
    const xs = row(s.tableRows, 'x-*'), x0 = row(s.tableFrom, 'x-0'), x1 = row(s.tableFrom, 'x-1');
    check(xs && x0 && x1 && xs.calls === x0.calls + x1.calls && x0.calls > 0 && x1.calls > 0,
      'the folded row adds the counts of the rows it folds', { folded: xs, x0, x1 });
    check(xs && xs.p50 === '—', 'a folded row of several names shows no percentiles', xs);
    check(s.flameLabels.includes('x-*') && !s.flameLabels.includes('x-0') && !s.flameLabels.includes('x-1'),
      'the flame graph folds them into one frame', s.flameLabels);
    /* Zoom onto a "tick" until the scopes inside it are labelled.  The
     * paused view may show no tick (a loaded machine can lose seconds
     * around a burst): then zoom out until one is in view.  Each step
     * waits for the frame painted after it, whatever the machine's pace. */
    const folds = (l) => l.includes('x-*') || l.includes('blk.*.attn_q');
    const bb = await page.locator('#tl-canvas').boundingBox();
    const box = { x: bb.x + bb.width / 2, y: bb.y + bb.height / 2 };
    for (let i = 0; i < 60 && !folds(s.labels); i++) {
      const at = await page.evaluate(() => window.__recorder.findSlice('tick', 0));
      await page.mouse.move(at ? at.x : box.x, at ? at.y : box.y);
      const before = (await state()).draws;
      await page.mouse.wheel(0, at ? -500 : 500);
      await until(async () => (s = await state()).draws > before, 5000, 20);
    }
    check(s.labels.includes('x-*') || s.labels.includes('blk.*.attn_q'), 'the timeline labels slices with folded names', s.labels);
    check(!s.labels.some((l) => /^(x-[01]|blk\.3\.attn_q)$/.test(l)), 'and with no unfolded ones', s.labels);
    await page.screenshot({ path: path.join(shots, 'loss-folded.png') });
    await page.click('#fold');
    const unfolded = await until(async () => {
      const n = (await state()).tableRows.map((r) => r.name);
      return n.includes('x-0') && n.includes('x-1') && !n.includes('x-*');
    }, 5000, 100);
    check(unfolded, 'unfolded, the rows are back');
    s = await state();
    check(s.decodeErrors === 0 && errors.length === 0, 'no errors in the page', { decode: s.decodeErrors, errors: errors.slice(0, 5) });

    /* ---- a truncated segment: the page keeps what it had and says so ---- */
    /* Leave the page first: it would try to reconnect to the server
     * stopped here, and report the refusal as an error. */
    await page.goto('about:blank');
    await stop(target.proc);
    await stop(srv.proc);
    check(fs.existsSync(segPath), 'the program kept its segment (RECORDER_KEEP=1)', segPath);
    srv = await startServer([segPath, '--port', '0']);
    await page.goto(srv.url);
    const exited = await until(async () => (await state()).conn === 'exited', 30000, 100);
    check(exited, 'a kept segment reads as program exited', (await state()).conn);
    fs.truncateSync(segPath, 4096);
    const trunc = await until(async () => { const t = await state(); return t.truncated && t.conn === 'truncated'; }, 30000, 100);
    s = await state();
    check(trunc && s.conn === 'truncated' && s.connText === 'segment truncated', 'truncated, the page says "segment truncated"',
      { conn: s.conn, text: s.connText, truncated: s.truncated, serverEvents: s.serverEvents, stderr: srv.stderr.text.slice(-500), exit: srv.proc.exitCode });
    check(errors.length === 0, 'no errors in the page after the truncation', errors.slice(0, 5));
    await page.screenshot({ path: path.join(shots, 'loss-truncated.png') });
  } finally {
    await closeBrowser(browser);
    await stop(srv.proc);
    await stop(target.proc);
    fs.rmSync(segPath, { force: true });
  }
});
