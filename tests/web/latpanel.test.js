/* latpanel.test.js -- the latency panel can be enlarged and read (issue
 * 20, item 3), in chromium (suite browser), on a live web_target:
 *   - at 1280 and 1024 px the right panel's tabs are whole ("LATEN" was
 *     all that showed at 1280);
 *   - the splitters: dragging the one between the table and the right
 *     panel widens the table by the drag, the one above the panels makes
 *     them taller by the drag, and the latency plot follows;
 *   - the maximise button (and `m`) makes the right panel fill the
 *     window, Esc (and the button) puts it back;
 *   - the histogram has a counts (y) axis: its labels, 0 first;
 *   - the CDF's labels do not touch the curve, nor each other.
 * Screenshots: WEB_SCREENSHOTS/latpanel-*.png. */
'use strict';
const fs = require('fs');
const path = require('path');
const { startTarget, startServer, stopClean, stop, check, main, until, need } = require('./harness');
const { launchPage } = require('./chromium');   /* exits 77 without a browser */

const shots = need('WEB_SCREENSHOTS');
fs.mkdirSync(shots, { recursive: true });
const settled = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const rectOf = (page, sel) => page.evaluate((s) => {
  const r = document.querySelector(s).getBoundingClientRect();
  return { x: r.x, y: r.y, w: r.width, h: r.height, right: r.right, bottom: r.bottom };
}, sel);

/* Boxes {x, y, w, h} that overlap (by more than touching). */
const overlap = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
/* Whether the polyline passes through a box: every segment sampled at
 * half-pixel steps. */
function crosses(curve, box) {
  for (let i = 0; i + 1 < curve.length; i++) {
    const [x0, y0] = curve[i], [x1, y1] = curve[i + 1];
    const n = Math.max(1, Math.ceil(2 * Math.hypot(x1 - x0, y1 - y0)));
    for (let k = 0; k <= n; k++) {
      const x = x0 + ((x1 - x0) * k) / n, y = y0 + ((y1 - y0) * k) / n;
      if (x >= box.x - 1 && x <= box.x + box.w + 1 && y >= box.y - 1 && y <= box.y + box.h + 1) return true;
    }
  }
  return false;
}

async function drag(page, sel, dx, dy) {
  const r = await rectOf(page, sel);
  const x = r.x + r.w / 2, y = r.y + r.h / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx / 2, y + dy / 2, { steps: 3 });
  await page.mouse.move(x + dx, y + dy, { steps: 3 });
  await page.mouse.up();
  await settled(page);
}

main(async () => {
  const target = await startTarget(['--threads', '3', '--rate', '4000', '--work-ns', '20000']);
  const srv = await startServer([String(target.pid), '--port', '0']);
  const { ctx, profile, page, errors } = await launchPage();
  const ist = () => page.evaluate(() => window.__recorder.interact());
  try {
    await page.goto(srv.url);
    check(await until(() => page.evaluate(() => window.__recorder.state().tableRows.length >= 4), 60000, 200),
      'the page shows the top scopes');

    /* ---- the tabs are whole ---- */
    for (const w of [1280, 1024]) {
      await page.setViewportSize({ width: w, height: 800 });
      await settled(page);
      const tabs = await page.$$eval('#right-tabs button', (bs) => bs.map((b) => {
        const r = b.getBoundingClientRect(), p = document.getElementById('right-panel').getBoundingClientRect();
        return { text: b.textContent, whole: b.scrollWidth <= b.clientWidth, inside: r.left >= p.left && r.right <= p.right };
      }));
      check(tabs.length === 2 && tabs.every((t) => t.whole && t.inside), `at ${w} px the right panel's tabs are whole`, tabs);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await settled(page);

    /* ---- the latency of "step" ---- */
    await page.click('#top-body tr:first-child td.l');
    await page.click('#right-tabs button[data-tab="latency"]');
    check(await until(async () => { const l = (await ist()).latency; return l && l.calls > 0 && l.drawn.cdf && l.drawn.hist; }, 20000),
      'a picked scope\'s latency is drawn');
    let lat = (await ist()).latency;

    /* The histogram's counts axis. */
    const h = lat.drawn.hist;
    check(h.yLabels.length >= 2 && h.yLabels[0].text === '0' && h.yLabels.every((L) => L.x + L.w <= h.plot.x) &&
      h.yLabels.every((L, i) => i === 0 || L.y < h.yLabels[i - 1].y),
      'the histogram has a counts axis: 0 at the bottom, rising, left of the bars', h);

    /* The CDF's labels: off the curve, apart. */
    const c = lat.drawn.cdf;
    const onCurve = c.labels.filter((L) => crosses(c.curve, L));
    const touching = c.labels.filter((L, i) => c.labels.some((M, j) => j !== i && overlap(L, M)));
    check(c.labels.length === 4 && c.curve.length >= 2 && onCurve.length === 0, 'the CDF\'s labels do not touch the curve',
      { onCurve, plot: c.plot });
    check(touching.length === 0, 'the CDF\'s labels do not overlap each other', c.labels);
    await page.locator('#right-panel').screenshot({ path: path.join(shots, 'latpanel-1280.png') });

    /* ---- the splitters ---- */
    const left0 = await rectOf(page, '#left-panel'), lat0 = lat.size;
    await drag(page, '#split-v', -200, 0);
    const left1 = await rectOf(page, '#left-panel');
    check(Math.abs(left1.w - (left0.w - 200)) <= 3, 'dragging the splitter 200 px left narrows the table by 200 px', { left0, left1 });
    check(await until(async () => (await ist()).latency.size.W >= lat0.W + 195, 5000), 'and the latency plot widens with it',
      { before: lat0, after: (await ist()).latency.size });
    const bot0 = await rectOf(page, '#bottom');
    await drag(page, '#split-h', 0, -150);
    const bot1 = await rectOf(page, '#bottom');
    check(Math.abs(bot1.h - (bot0.h + 150)) <= 3 && bot1.bottom === bot0.bottom, 'dragging the upper splitter 150 px up makes the panels 150 px taller',
      { bot0, bot1 });
    check(await until(async () => (await ist()).latency.size.H >= lat0.H + 145, 5000), 'and the latency plot is taller');
    await page.screenshot({ path: path.join(shots, 'latpanel-dragged.png') });

    /* ---- maximise ---- */
    await page.click('#btn-max');
    await settled(page);
    const max = await rectOf(page, '#right-panel');
    check(max.x === 0 && max.y === 0 && max.w === 1280 && max.h === 800 && (await ist()).maxed, 'maximised, the panel fills the window', max);
    check(await until(async () => (await ist()).latency.size.W >= 1270, 5000), 'and the plots with it', (await ist()).latency.size);
    await page.screenshot({ path: path.join(shots, 'latpanel-maximised.png') });
    await page.keyboard.press('Escape');
    await settled(page);
    const back = await rectOf(page, '#right-panel');
    check(!(await ist()).maxed && back.w < 1280 && back.y > 0, 'Esc puts it back', back);
    await page.keyboard.press('m');
    await settled(page);
    check((await ist()).maxed && (await rectOf(page, '#right-panel')).w === 1280, '`m` maximises it');
    await page.click('#btn-max');
    await settled(page);
    check(!(await ist()).maxed, 'and the button puts it back');

    /* At 1024 px, maximised, the plots are readable too. */
    await page.setViewportSize({ width: 1024, height: 768 });
    await page.keyboard.press('m');
    await settled(page);
    check(await until(async () => (await ist()).latency.size.W >= 1014, 5000), 'at 1024 px, maximised, the plots fill the width');
    await page.screenshot({ path: path.join(shots, 'latpanel-1024-maximised.png') });
    check(errors.length === 0, 'no errors in the page', errors.slice(0, 5));
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
    await stopClean(srv);
    await stop(target.proc);
  }
});
