/* layout.test.js -- the page at narrow widths and without its token, in
 * chromium (suite browser).  At 1024 and 960 px the top table's scope
 * names stay readable (the SCOPE column used to shrink to 0 px there);
 * opening the URL without the token, or with a wrong one, gives a 403
 * page that says where the token is and does not contain it.
 * Screenshots go to WEB_SCREENSHOTS. */
'use strict';
const fs = require('fs');
const path = require('path');
const { startTarget, startServer, stopClean, request, stop, check, main, until, need } = require('./harness');
const { launch } = require('./chromium');   /* exits 77 without a browser */

const shots = need('WEB_SCREENSHOTS');
fs.mkdirSync(shots, { recursive: true });

main(async () => {
  const target = await startTarget(['--threads', '2', '--rate', '2000', '--work-ns', '100000']);
  const srv = await startServer([String(target.pid), '--port', '0']);
  const { ctx, profile } = await launch();
  const page = ctx.pages()[0] || (await ctx.newPage());
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  try {
    /* ---- without the token: 403, and where to find it ---- */
    const base = `http://127.0.0.1:${srv.port}`;
    for (const [p, why] of [['/', 'no token'], ['/?t=00000000000000000000000000000000', 'a wrong token'], ['/index.html', 'no token, /index.html']]) {
      const r = await request(srv.port, p);
      const body = r.body.toString();
      check(r.status === 403 && /The URL with the token is printed by recorder-web on start/.test(body) && !body.includes(srv.token),
        `${why}: 403, a page that says where the token is, not the token`, { status: r.status, body: body.slice(0, 300) });
    }
    const resp = await page.goto(base + '/');
    const text = await page.textContent('body');
    check(resp.status() === 403 && /printed by recorder-web on start/.test(text) && !text.includes(srv.token),
      'in the browser, the token-less page says where the token is', { status: resp.status(), text });
    await page.screenshot({ path: path.join(shots, 'layout-no-token.png') });

    /* ---- narrow windows: the scope names stay ---- */
    await page.goto(srv.url);
    const ready = await until(() => page.evaluate(() => window.__recorder.state().topRows.length >= 4), 60000, 200);
    check(ready, 'the page shows the top scopes');
    for (const [w, h] of [[1024, 768], [960, 720], [1440, 900]]) {
      await page.setViewportSize({ width: w, height: h });
      await page.waitForTimeout(300);
      const cells = await page.$$eval('#top-body tr:not([hidden]) td.l', (tds) => tds.map((td) => {
        const r = td.getBoundingClientRect(), t = td.lastChild.getBoundingClientRect();
        return { w: r.width, left: r.left, text: td.textContent, clipped: t.right > r.right - 2 };
      }));
      /* web_target's names are 12 characters at most: none is cut. */
      const narrow = cells.filter((c) => c.w < 100 || c.clipped || c.left < 0 || c.left > w);
      check(cells.length >= 4 && narrow.length === 0, `at ${w} px the SCOPE column keeps the names readable`, { cells: cells.slice(0, 4), narrow });
      /* Nothing pushes the page past the window: the panels' right edges
       * and the header's last figure are inside it. */
      const edges = await page.evaluate(() => ({
        body: document.body.scrollWidth, bottom: document.querySelector('.bottom').getBoundingClientRect().right,
        flame: document.querySelector('.bottom .panel:last-child').getBoundingClientRect().right,
        lanes: document.getElementById('m-lanes-box').getBoundingClientRect().right,
        download: document.getElementById('btn-download').getBoundingClientRect().right,
        pftrace: document.getElementById('btn-download-pf').getBoundingClientRect().right }));
      check(edges.body <= w && edges.bottom <= w && edges.flame <= w && edges.lanes <= w && edges.pftrace <= w,
        `at ${w} px the page fits the window`, edges);
      await page.screenshot({ path: path.join(shots, `layout-${w}.png`) });
    }
    check(errors.length === 0, 'no errors in the page', errors.slice(0, 5));
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
    await stopClean(srv);
    await stop(target.proc);
  }
});
