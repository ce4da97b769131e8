/* viewport.test.js -- the page never lays out wider than the window
 * (issue 20, item 1), in chromium (suite browser).  At the common screen
 * sizes, on a live program and on a capture file, no element of the page
 * reaches past the window's right edge (at 1280 x 800 the toolbar used to
 * lay out 1412 px wide and cut off "now", Download JSON and .pftrace),
 * and the page cannot scroll sideways.  A screenshot of each goes to
 * WEB_SCREENSHOTS (viewport-live-1280x800.png, viewport-file-...). */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { startTarget, startServer, stopClean, run, stop, check, main, until, need } = require('./harness');
const { launchPage } = require('./chromium');   /* exits 77 without a browser */

const shots = need('WEB_SCREENSHOTS');
fs.mkdirSync(shots, { recursive: true });
const SIZES = [[1024, 768], [1280, 800], [1366, 768], [1440, 900], [1920, 1080], [2560, 1440]];

/* Every element with a box that reaches past the window's right edge. */
function pastRight() {
  const W = document.documentElement.clientWidth, out = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;   /* not shown */
    if (r.right > W + 0.5) out.push({ el: el.tagName + (el.id ? '#' + el.id : '') + (el.className ? '.' + String(el.className).split(' ')[0] : ''), right: Math.round(r.right) });
  }
  return { W, scroll: document.documentElement.scrollWidth, bodyScroll: document.body.scrollWidth, out: out.slice(0, 8), n: out.length };
}

/* Two animation frames: the layout after a resize has been drawn. */
const settled = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

async function sizes(page, mode) {
  for (const [w, h] of SIZES) {
    await page.setViewportSize({ width: w, height: h });
    await settled(page);
    const got = await page.evaluate(pastRight);
    check(got.W === w && got.n === 0 && got.scroll <= w && got.bodyScroll <= w,
      `${mode}, ${w}x${h}: nothing reaches past the right edge, no sideways scroll`, got);
    /* The controls that were cut off are whole and inside. */
    /* A file has file controls where a live program has Pause (fileview.js). */
    const ids = ['btn-download', 'btn-download-pf', 'btn-keys', 'search'].concat(
      mode === 'file' ? ['btn-file-fit', 'btn-file-start', 'btn-file-end', 'file-pos'] : ['btn-pause']);
    const ctl = await page.evaluate((ids) => ids.map((id) => {
      const el = document.getElementById(id), r = el ? el.getBoundingClientRect() : { left: 0, right: 0, width: 0 };
      return { id, left: r.left, right: r.right, w: r.width };
    }), ids);
    check(ctl.every((c) => c.w > 0 && c.left >= 0 && c.right <= w), `${mode}, ${w}x${h}: the toolbar's controls are all shown`, ctl);
    await page.screenshot({ path: path.join(shots, `viewport-${mode}-${w}x${h}.png`) });
  }
}

main(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webviewport-'));
  const rec = path.join(dir, 'run.rec');
  const cap = await run(need('RECORDER_CLI'), ['capture', '-o', rec, '-q', '--', need('WEB_TARGET'), '--threads', '2',
    '--rate', '5000', '--seconds', '1'], 60000);
  check(cap.code === 0 && fs.existsSync(rec), 'recorder capture writes the file', cap.stderr);

  const target = await startTarget(['--threads', '3', '--rate', '4000', '--work-ns', '20000']);
  const live = await startServer([String(target.pid), '--port', '0']);
  const file = await startServer([rec, '--port', '0']);
  const { ctx, profile, page, errors } = await launchPage();
  try {
    await page.goto(live.url);
    check(await until(() => page.evaluate(() => window.__recorder.state().topRows.length >= 4), 60000, 200),
      'live: the page shows the top scopes');
    await sizes(page, 'live');

    await page.goto(file.url);
    check(await until(() => page.evaluate(() => {
      const s = window.__recorder.state();
      return s.file && !s.loading && s.topRows.length >= 4;
    }), 60000, 200), 'file: the page shows the capture');
    await sizes(page, 'file');
    check(errors.length === 0, 'no errors in the page', errors.slice(0, 5));
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
    await stopClean(live);
    await stopClean(file);
    await stop(target.proc);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
