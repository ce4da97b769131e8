/* gpu_page.test.js -- GPU lanes on the page, in chromium (suite browser;
 * issue 19): recorder-web on tests/gpu/fake_gpu --live.  The lanes come
 * in order -- the CPU thread "host", then a header row per device ("GPU
 * 0", "GPU 1") above that device's lane and its stream lane -- and flow
 * arrows are drawn from the launches on host to the kernels on the
 * streams.  Screenshots go to WEB_SCREENSHOTS. */
'use strict';
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { startServer, stopClean, stop, check, main, until, need } = require('./harness');
const { launchPage, closeBrowser } = require('./chromium');   /* exits 77 without a browser */

const shots = need('WEB_SCREENSHOTS');
fs.mkdirSync(shots, { recursive: true });

function startFakeGpu() {
  const proc = spawn(need('FAKE_GPU'), ['--live'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      if (out.includes('ready\n')) resolve(proc);
    });
    proc.on('exit', (code) => reject(new Error(`fake_gpu exited (${code}) before "ready"`)));
  });
}

main(async () => {
  const gpu = await startFakeGpu();
  const srv = await startServer([String(gpu.pid), '--port', '0']);
  const browser = await launchPage();
  const { page, errors } = browser;
  try {
    await page.goto(srv.url);
    const state = () => page.evaluate(() => window.__recorder.state());
    const order = ['host', 'GPU0', 'GPU0 stream 7', 'GPU1', 'GPU1 stream 13'];
    const up = await until(async () => {
      const s = await state();
      return s.connected && s.lanes.map((l) => l.name).join('|') === order.join('|') && s.groups.length === 2 &&
        s.lanes.every((l) => l.name === 'GPU0' || l.name === 'GPU1' || l.slices > 0);
    }, 60000, 200);
    let s = await state();
    check(up, 'the thread, then each device\'s lane and its stream, in order', s.lanes.map((l) => [l.name, l.kind, l.device]));
    check(s.groups[0].title === 'GPU 0' && s.groups[0].lanes.join('|') === 'GPU0|GPU0 stream 7' && /1 stream/.test(s.groups[0].sub),
      'a header row for GPU 0 above its lanes', s.groups[0]);
    check(s.groups[1].title === 'GPU 1' && s.groups[1].lanes.join('|') === 'GPU1|GPU1 stream 13', 'a header row for GPU 1', s.groups[1]);
    check(s.groups[0].y < s.groups[1].y, 'GPU 0 above GPU 1', s.groups);
    /* Flows: the stream lanes' flow ends point back at host's launches. */
    const linked = await until(() => page.evaluate(() => {
      const st = window.__recorder.store;
      const host = st.laneOrder.find((L) => L.name === 'host');
      return st.laneOrder.filter((L) => L.name.includes('stream')).every((L) => {
        const F = L.flows;
        for (let i = 0; i < F.n; i++) if (F.pLane[i] === host.id) return true;
        return false;
      });
    }), 30000, 200);
    check(linked, 'each stream lane has a flow from a launch on host');
    /* Zoom in on the latest launches: the arrows are drawn.  Pausing keeps
     * the view still; the wheel zooms around the pointer. */
    await page.keyboard.press('Space');
    const box = await page.locator('#tl-canvas').boundingBox();
    await page.mouse.move(box.x + box.width - 40, box.y + box.height * 0.5);
    const drawn = await until(async () => {
      if ((await state()).flowsDrawn > 0) return true;
      await page.mouse.wheel(0, -400);
      return false;
    }, 60000, 200);
    s = await state();
    check(drawn, 'flow arrows drawn from the launches to the kernels', { flows: s.flowsDrawn, span: s.span });
    await page.screenshot({ path: path.join(shots, 'gpu.png') });
    check(errors.length === 0, 'no errors in the page', errors.slice(0, 5));
  } finally {
    await closeBrowser(browser);
    await stopClean(srv);
    await stop(gpu);
  }
});
