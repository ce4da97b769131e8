/* notrec_page.test.js -- the page's header says how many threads the
 * program could not record (suite browser; issue 18, item 10).
 *
 * web_target with 6 workers on RECORDER_MAX_THREADS=2: threads that found
 * every slot live recorded nothing.  The header shows "not recorded N"
 * in the loss's color (N: the segment's count, as `recorder ls --json`
 * reads it), and hovering says what it means; a program with every
 * thread recorded shows no such box.  The same for names recorded as
 * "<strings full>" (web_target --layers 1000 on RECORDER_STRINGS_KB=16):
 * the header shows "<strings full> N", N as `recorder ls --json` reads it
 * (names_strings_full); the program with room for its names shows none. */
'use strict';
const fs = require('fs');
const { startTargetLines, startServer, stop, check, main, until, run, need } = require('./harness');
const { launch } = require('./chromium');   /* exits 77 without a browser */

main(async () => {
  const target = await startTargetLines(['--threads', '6', '--rate', '100000', '--work-ns', '0', '--events', '2000'],
    { RECORDER_MAX_THREADS: '2' });
  check(await until(() => target.lines.includes('done'), 120000), 'the program ran and went quiet');
  const ls = await run(need('RECORDER_CLI'), ['ls', '--json']);
  const mine = ls.stdout.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l))
    .find((o) => o.name === 'recorder.' + target.pid);
  const n = mine ? mine.threads_not_recorded : -1;
  check(n > 0, `recorder ls --json: ${n} threads not recorded`, mine);
  const full = await startTargetLines(['--threads', '2', '--rate', '100000', '--work-ns', '0', '--events', '20000',
    '--layers', '1000'], { RECORDER_STRINGS_KB: '16' });
  check(await until(() => full.lines.includes('done'), 120000), 'the program of many names ran and went quiet');
  const ls2 = await run(need('RECORDER_CLI'), ['ls', '--json']);
  const mine2 = ls2.stdout.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l))
    .find((o) => o.name === 'recorder.' + full.pid);
  const nf = mine2 ? mine2.names_strings_full : -1;
  check(nf > 0 && nf < 1e4, `recorder ls --json: ${nf} names recorded as <strings full>`, mine2);
  const all = await startTargetLines(['--threads', '2', '--rate', '1000', '--work-ns', '0']);
  const srv = await startServer([String(target.pid), '--port', '0']);
  const srvAll = await startServer([String(all.pid), '--port', '0']);
  const srvFull = await startServer([String(full.pid), '--port', '0']);
  const { ctx, profile } = await launch();
  try {
    const page = ctx.pages()[0] || (await ctx.newPage());
    /* The header's box `id` at url: shown with count, in the loss's
     * color, its hover text matching tip. */
    const box = async (url, id, count, label, tip) => {
      await page.goto(url);
      const shown = await until(async () => (await page.isVisible(`#${id}-box`)) &&
        (await page.textContent(`#${id}`)) === String(count), 30000, 200);
      check(shown, `the header shows "${label} ${count}"`, await page.textContent(`#${id}`));
      check(await page.evaluate((b) => document.getElementById(b).classList.contains('bad'), `${id}-box`),
        `${label}: in the loss's color`);
      const title = await page.getAttribute(`#${id}-box`, 'title');
      check(tip.test(title), `${label}: hovering says what it counts`, title);
    };
    await box(srv.url, 'm-norec', n, 'not recorded',
      new RegExp(`^${n} threads not recorded: .*RECORDER_MAX_THREADS.*recorded nothing`));
    await page.goto(srvAll.url);
    const connected = await until(() => page.evaluate(() => window.__recorder && window.__recorder.state().connected), 30000, 200);
    check(connected && !(await page.isVisible('#m-norec-box')), 'every thread recorded: no such box');
    check(!(await page.isVisible('#m-namesfull-box')), 'every name recorded: no <strings full> box');
    await box(srvFull.url, 'm-namesfull', nf, '<strings full>',
      new RegExp(`^${nf} names recorded as <strings full>: .*RECORDER_STRINGS_KB`));
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
    await stop(srv.proc);
    await stop(srvAll.proc);
    await stop(srvFull.proc);
    await stop(target.proc);
    await stop(all.proc);
    await stop(full.proc);
  }
});
