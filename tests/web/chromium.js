/* chromium.js -- what the browser tests share: Debian's chromium, headless,
 * through playwright-core, with a throwaway profile.  Requiring it exits
 * with 77 (meson's skip) when either is missing. */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

const SKIP = 77;
const nodeModules = path.join(__dirname, '../node/node_modules');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
let chromium;
try {
  ({ chromium } = require(path.join(nodeModules, 'playwright-core')));
} catch (e) {
  console.log('SKIP: playwright-core is not installed (run `npm install` in tests/node)');
  process.exit(SKIP);
}
if (!fs.existsSync(chromiumPath)) {
  console.log(`SKIP: no chromium at ${chromiumPath}`);
  process.exit(SKIP);
}

async function launch() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'recorder-web-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1440, height: 900 },
    acceptDownloads: true,
  });
  return { ctx, profile };
}

/* A browser with one page whose errors (uncaught, console.error) are
 * collected in `errors`. */
async function launchPage() {
  const { ctx, profile } = await launch();
  const page = ctx.pages()[0] || (await ctx.newPage());
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  return { ctx, profile, page, errors };
}

/* Closes what launch() or launchPage() opened and removes its profile. */
async function closeBrowser({ ctx, profile }) {
  try {
    await ctx.close();
  } finally {
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

module.exports = { launch, launchPage, closeBrowser };
