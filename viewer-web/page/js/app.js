/* app.js -- the page: connects back to recorder-web over WebSocket, feeds
 * the store, draws at the display's frame rate, and keeps the header's
 * status honest (connected or not, what was lost and why, whether the
 * statistics shown are partial), in the words every tool uses: lost,
 * not kept, partial (docs/web.md, "Lost, not kept, partial"). */

const token = new URLSearchParams(location.search).get('t') || '';
const $ = (id) => document.getElementById(id);

const store = new Store();
const colors = new Colors(store);
const tooltip = $('tooltip');
const timeline = new Timeline($('tl-canvas'), store, colors, tooltip);
const flame = new Flame($('flame-canvas'), $('flame-crumbs'), $('flame-sub'), store, colors, tooltip);
const table = new TopTable($('top'), $('top-body'), $('top-sub'), store, colors);

let ws = null;
let connState = 'connecting';
let retryMs = 250;
let windowSel = 1;
let lastStatsVersion = null;
let decodeErrors = 0;

/* Frame and event rates, over the last second. */
/* drawTotalMs and interactMs: time spent painting the timeline, and in
 * the interaction features (interact.js), since the page loaded. */
const perf = { frames: 0, fps: 0, rafCount: 0, events: 0, eventsPerSec: 0, t0: performance.now(), ev0: 0, bytes: 0, drawMs: 0,
  drawTotalMs: 0, interactMs: 0 };

function setConn(state, text) {
  connState = state;
  const p = $('conn');
  p.dataset.state = state;
  p.textContent = text;
}

function connect() {
  setConn('connecting', 'connecting');
  const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws?t=' + encodeURIComponent(token);
  const sock = new WebSocket(url, SUBPROTOCOL);
  sock.binaryType = 'arraybuffer';
  ws = sock;
  sock.onopen = () => {
    retryMs = 250;
    /* A new connection starts a new picture: counts stay exact. */
    store.reset();
    interact.reset();
    perf.ev0 = 0;
    colors.reset();
    timeline.layoutKey = '';
    timeline.setLive(true);
    setConn('live', 'connected');
    sock.send(encodeSetWindow(windowSel));
    if (document.hidden) sock.send(encodeHidden(true));
  };
  sock.onmessage = (e) => {
    perf.bytes += e.data.byteLength;
    try {
      decodeMessage(e.data, store);
      dataCame();
    } catch (err) {
      decodeErrors++;
      console.error('recorder: bad message from the server:', err);
      sock.close(4002, 'bad message');
    }
  };
  sock.onclose = () => {
    if (ws !== sock) return;
    ws = null;
    setConn('disconnected', 'disconnected');
    setTimeout(connect, retryMs);
    retryMs = Math.min(5000, retryMs * 2);
  };
}

/* ---- controls ---- */
const pauseBtn = $('btn-pause');
/* A capture file is no live program: the view follows its end as it is
 * read ("following"), and the button goes back to that ("Follow"). */
function showMode(live) {
  const file = !!(store.helloMsg && store.helloMsg.file);
  const btn = live ? 'Pause' : file ? 'Follow' : 'Live', label = live ? (file ? 'following' : 'live') : 'paused';
  setText(pauseBtn, btn);
  pauseBtn.classList.toggle('paused', !live);
  setText($('view-state'), label);
  $('view-state').classList.toggle('paused', !live);
}
timeline.onMode = showMode;
pauseBtn.addEventListener('click', () => timeline.setLive(!timeline.live));

/* The snapshot downloads: /trace.json and /trace.pftrace (docs/web.md). */
function download(ext) {
  const a = document.createElement('a');
  a.href = '/trace.' + ext + '?t=' + encodeURIComponent(token);
  a.download = 'recorder-' + (store.helloMsg ? store.helloMsg.pid : 'trace') + '.' + ext;
  document.body.append(a);
  a.click();
  a.remove();
}
$('btn-download').addEventListener('click', () => download('json'));
$('btn-download-pf').addEventListener('click', () => download('pftrace'));

for (const b of $('window').querySelectorAll('button')) {
  b.addEventListener('click', () => {
    windowSel = Number(b.dataset.w);
    for (const o of $('window').querySelectorAll('button')) o.classList.toggle('on', o === b);
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(encodeSetWindow(windowSel));
  });
}

/* Fold layer numbers (fold.js): remembered by this browser. */
function setFold(on) {
  nameFold.on = on;
  $('fold').checked = on;
  try { localStorage.setItem('recorder.fold', on ? '1' : '0'); } catch (e) { /* storage off */ }
  table.render();
  flame.refold();
  timeline.moved();   /* labels from scratch */
}
$('fold').addEventListener('change', () => setFold($('fold').checked));
try { if (localStorage.getItem('recorder.fold') === '1') setFold(true); } catch (e) { /* storage off */ }

/* Keys: keys.js (bound by interact.js). */

/* ---- the header's numbers ---- */
const CONN_TEXT = { live: 'connected', exited: 'program exited', truncated: 'segment truncated',
  loading: 'capture file: reading…', file: 'capture file', fileCut: 'capture file: cut or corrupt' };
const CONNECTED = new Set(['live', 'exited', 'truncated', 'loading', 'file', 'fileCut']);

/* The statistics of the window shown are partial: how much was decoded. */
function showPartial() {
  const st = store.statsMsg, badge = $('partial');
  const c = st && st.window === windowSel ? st.cover : null;
  setHidden(badge, !(c && c.partial));
  if (badge.hidden) return;
  setText(badge, 'partial: ' + fmtDecoded(c.decodedFrac) + ' decoded');
  const win = ['last second', 'last 10 s', 'whole run'][st.window] || 'window';
  setTitle(badge, `Entries were lost in the ${win}: its statistics are computed from part of the data ` +
    `(${c.decoded} events decoded, ${c.lost} entries lost: overwritten, dropped or bad). Calls and calls/s count ` +
    `what was decoded; total% and self% are of the time the decoded data covers, not of the whole window ` +
    `(${fmtDur(c.gapNs)} of it, summed over threads, is not covered).`);
}
function setMetric(id, text, cls, boxId) {
  setText($(id), text);
  if (boxId) {
    const box = $(boxId);
    box.classList.toggle('bad', cls === 'bad');
    box.classList.toggle('warn', cls === 'warn');
  }
}

function updateHeader() {
  const h = store.helloMsg, st = store.statusMsg;
  showMode(timeline.live);
  if (h) {
    /* Several programs: all of them; a capture file says so: it is a
     * recording, not a live program. */
    const several = h.procs && h.procs.length > 1;
    setText($('proc-name'), several ? h.procs.map((p) => p.name || '?').join(' + ') : h.name || '?');
    setText($('proc-pid'), several ? 'pids ' + h.procs.map((p) => p.pid).join(', ')
      : (h.file ? 'file ' + h.path + ' · ' : '') + 'pid ' + h.pid);
    /* Root watching another user's program: say whose it is. */
    const owner = $('proc-owner');
    setHidden(owner, !h.foreign);
    setText(owner, h.foreign ? 'owned by uid ' + h.ownerUid : '');
    setTitle(owner, h.foreign ? `the segment belongs to uid ${h.ownerUid}, not to the user recorder-web runs as` : '');
    const title = (h.name || 'recorder') + ' · recorder';
    if (document.title !== title) document.title = title;
  }
  /* Once connected: the program's state, a truncated segment first (the
   * page keeps what it has; nothing more can come). */
  if (st && CONNECTED.has(connState)) {
    const want = h && h.file ? (st.truncated ? 'fileCut' : st.loading ? 'loading' : 'file')
      : st.truncated ? 'truncated' : st.alive ? 'live' : 'exited';
    if (want !== connState) setConn(want, CONN_TEXT[want]);
  }
  setTitle($('conn'), connState === 'truncated'
    ? 'the program shrank its segment file: nothing more can be read; the page keeps what it had'
    : connState === 'fileCut'
      ? "the capture file ends early (cut short, corrupt, or changed while read): shown up to its last good record; recorder-web's warning says where"
      : "the page's connection to recorder-web");
  setMetric('m-rate', fmtCount(perf.eventsPerSec));
  setMetric('m-recv', fmtCount(store.events));
  const lost = st ? st.lost : 0, notKept = st ? st.notKept : 0;
  setMetric('m-lost', fmtCount(lost), lost ? 'bad' : '', 'm-lost-box');
  setMetric('m-notkept', fmtCount(notKept));
  /* Threads that got no ring recorded nothing: never silent. */
  const norec = st ? st.notRecorded : 0;
  setHidden($('m-norec-box'), !norec);
  setMetric('m-norec', fmtCount(norec), norec ? 'bad' : '', 'm-norec-box');
  setTitle($('m-norec-box'), `${norec} thread${norec === 1 ? '' : 's'} not recorded: threads of the program that got no ring ` +
    '(every thread slot in use: RECORDER_MAX_THREADS, or /dev/shm full); they recorded nothing');
  /* Names recorded as <strings full>: counted, never silent (the words
   * of ls, dump, report and recorder-top). */
  const full = st ? st.namesFull : 0;
  setHidden($('m-namesfull-box'), !full);
  setMetric('m-namesfull', fmtCount(full), full ? 'bad' : '', 'm-namesfull-box');
  setTitle($('m-namesfull-box'), `${full} name${full === 1 ? '' : 's'} recorded as <strings full>: the program's string ` +
    'table was at its limit (RECORDER_STRINGS_KB); their events show that placeholder instead of their names');
  const thin = st ? st.thinned : 0;
  setMetric('m-thin', fmtCount(thin), thin ? 'warn' : '', 'm-thin-box');
  setTitle($('m-lost-box'), st
    ? `lost: ${st.lost} entries written since recorder-web attached that it never read: ${st.overwritten} overwritten ` +
      `(the program lapped it), ${st.dropped} dropped (stream mode: the ring was full), ${st.bad} bad (cannot be right); ` +
      `${Math.max(0, st.lost - store.lostBase)} since this page connected` +
      (st.spills ? `. While it was busy adding up, recorder-web's second thread read the rings ${st.spills} times` +
        (st.spillsFull ? `; its buffer filled ${st.spillsFull} of them, which left the rest in the rings` : '') : '')
    : '');
  setTitle($('m-notkept-box'), st
    ? `not kept: ${st.notKept} entries the rings had already overwritten when recorder-web first read them. ` +
      'A flight recorder keeps the last ring\'s worth: this history is older than recorder-web, not a loss'
    : '');
  showPartial();
  setTitle($('m-thin-box'), st
    ? `events recorder-web skipped for this page because it fell behind: ${st.thinned} in ${st.thinnedFrames} frames` +
      (st.hidden ? `; and ${st.hidden} it did not send while this tab was hidden (when shown again, the tab got the ` +
        'last seconds it missed; the run\'s summary covers the rest)' : '')
    : '');
  /* Lanes: never dropped silently.  Retired lanes (oldest exited threads,
   * past recorder-web's bound) and folded threads (no lane: too many alive
   * at once) are shown next to the count. */
  const nl = store.laneOrder.length, ret = store.lanesRetired, fold = store.threadsFolded;
  let lanesText = fmtCount(nl);
  if (ret) lanesText += ' · ' + fmtCount(ret) + ' retired';
  if (fold) lanesText += ' · ' + fmtCount(fold) + ' folded';
  setMetric('m-lanes', lanesText, fold ? 'warn' : '', 'm-lanes-box');
  setTitle($('m-lanes-box'), `${nl} thread lanes on this page. recorder-web keeps at most 4096: ` +
    `${ret} lanes of exited threads were retired (their slices went with them); ` +
    `${fold} threads got no lane because more than 4096 were alive at once; ` +
    `${st ? st.nolane : 0} events of threads without a lane were not sent, ${store.offLane} arrived after their lane was retired`);
  setText($('view-span'), fmtDur(timeline.span));
  setHidden($('tl-empty'), store.laneOrder.length > 0);
}

/* ---- the frame loop ----
 *
 * An animation frame costs the browser a pass through its rendering
 * pipeline (its compositor and its GPU process included) even when the
 * page paints nothing: 0.05–0.07 of a core on the 2-core machine of
 * docs/performance/watch.md, for a page that only waits.  So the loop
 * asks for animation frames only while something moves (a panel to
 * repaint, or within ACTIVE_MS of the user's last input), and otherwise
 * sleeps on a timer until its next piece of work is due: a paced redraw,
 * the header, a figure that follows the data (interact.js).  Input and
 * new data wake it.  A hidden tab gets no frames at all: the timer only
 * asks for one.  Work that can wait rides on a frame that comes anyway:
 * the header is brought up to date in any frame HEADER_MS after the last
 * time, and asks for a frame of its own only HEADER_LATE_MS after it (the
 * trim likewise).  Each on its own timer, a live view took about 13
 * frames a second for its 5 redraws. */
let lastTrim = 0, lastHeader = 0, lastFlameTree = null, lastDraw = 0;
/* Redraw pacing (frame() below): a view that follows the program, 5
 * redraws/s with new data and 2/s without (its clock moves); a view held
 * still gets new data (mostly what it asked for: a capture file's window)
 * 15 times a second; a view the user moves, at once. */
const LIVE_GAP_MS = 200, HELD_GAP_MS = 66, IDLE_GAP_MS = 500, ACTIVE_MS = 500;
const HEADER_MS = 200, HEADER_LATE_MS = 400, TRIM_MS = 1000, TRIM_LATE_MS = 2000;
/* The time between redraws: by what is new, and never more than a
 * quarter of the time drawing. */
const redrawGap = (fresh) => Math.max(fresh ? (timeline.live ? LIVE_GAP_MS : HELD_GAP_MS) : IDLE_GAP_MS, 3 * perf.drawMs);
let frameAsked = false, sleepTimer = 0, sleepUntil = Infinity, lastInput = -Infinity;

function wake() {
  if (sleepTimer) { clearTimeout(sleepTimer); sleepTimer = 0; sleepUntil = Infinity; }
  if (!frameAsked) { frameAsked = true; requestAnimationFrame(frame); }
}
/* A frame within ms from now (sooner if one is asked for already). */
function wakeIn(ms) {
  if (frameAsked) return;
  const at = performance.now() + Math.max(0, ms);
  if (sleepTimer && sleepUntil <= at) return;
  if (sleepTimer) clearTimeout(sleepTimer);
  sleepUntil = at;
  sleepTimer = setTimeout(() => { sleepTimer = 0; sleepUntil = Infinity; wake(); }, Math.max(0, ms));
}
for (const type of ['pointerdown', 'pointermove', 'pointerup', 'wheel', 'keydown', 'keyup', 'input', 'change', 'click',
  'dblclick', 'contextmenu', 'focus', 'blur', 'resize']) {
  window.addEventListener(type, () => { lastInput = performance.now(); wake(); }, { capture: true, passive: true });
}
/* A hidden tab draws nothing, and is sent no events: recorder-web holds
 * them back (STATUS counts them) and, once the tab is shown, sends the
 * recent ones it missed, as to a page that joins late. */
document.addEventListener('visibilitychange', () => {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(encodeHidden(document.hidden));
  wake();
});
/* New data: a redraw, paced as frame() paces it. */
function dataCame() {
  wakeIn(lastDraw + redrawGap(true) - performance.now());
}

function frame(now) {
  frameAsked = false;
  perf.rafCount++;
  perf.frames++;
  if (now - perf.t0 >= 1000) {
    const dt = (now - perf.t0) / 1000;
    perf.fps = perf.frames / dt;
    perf.drawsPerSec = ((timeline.draws || 0) - (perf.draws0 || 0)) / dt;
    perf.draws0 = timeline.draws || 0;
    perf.eventsPerSec = Math.max(0, store.events - perf.ev0) / dt;
    perf.frames = 0;
    perf.t0 = now;
    perf.ev0 = store.events;
  }
  if (now - lastTrim >= TRIM_MS) { store.trim(); lastTrim = now; }
  /* Paused, the table and the flame graph hold still with the timeline
   * (unless another window was asked for); a selected range replaces the
   * server's statistics with the page's own (interact.js). */
  const shown = table.stats;
  if (store.statsMsg !== lastStatsVersion && interact.serverStats() &&
      (timeline.live || !shown || shown.range || shown.window !== windowSel)) {
    lastStatsVersion = store.statsMsg;
    if (store.statsMsg && store.statsMsg.window === windowSel) {
      table.set(store.statsMsg);
      if (store.statsMsg.nodes !== lastFlameTree) {
        flame.setTree(store.statsMsg.nodes, store.statsMsg.cover);
        lastFlameTree = store.statsMsg.nodes;
      }
    }
  }
  /* Redraw when something changed, at a rate that follows it: at once
   * when the user moves the view; otherwise new data at most every
   * redrawGap(true), and a live view with nothing new (only its clock moves)
   * every IDLE_GAP_MS; and never more than a quarter of the time drawing.
   * The page shares its machine with the program it watches: a redraw
   * per frame of a view that hardly changes took most of a core from it
   * (docs/performance/watch.md).  A hidden tab gets no frames at all. */
  const fresh = store.version !== timeline.drawnVersion;
  const wants = timeline.live || timeline.dirty || fresh;
  const gap = timeline.dirty ? 0 : redrawGap(fresh);
  if (wants && now - lastDraw >= gap) {
    lastDraw = now;
    const t = performance.now();
    timeline.drawnVersion = store.version;
    timeline.draw();
    if (timeline.mouse) timeline.showTooltip(timeline.mouse.cx, timeline.mouse.cy);
    const took = performance.now() - t;
    perf.drawMs = 0.8 * perf.drawMs + 0.2 * took;
    perf.drawTotalMs += took;
  }
  interact.frame(now);
  if (flame.dirty && !$('flame').hidden) flame.draw();
  if (now - lastHeader >= HEADER_MS) { updateHeader(); lastHeader = now; }
  /* The next frame: now if something moves, else when work is due. */
  if (timeline.dirty || now - lastInput < ACTIVE_MS) { wake(); return; }
  let next = Math.min(lastHeader + HEADER_LATE_MS, lastTrim + TRIM_LATE_MS, now + interact.due()) - now;
  const unseen = store.version !== timeline.drawnVersion;
  if (timeline.live || unseen) next = Math.min(next, lastDraw + redrawGap(unseen) - now);
  wakeIn(next);
}

window.addEventListener('resize', () => { timeline.moved(); flame.dirty = true; interact.resize(); table.render(); });

/* What the tests read (and a console user may like). */
window.__recorder = {
  perf,
  store,
  timeline,
  state() {
    const st = store.statusMsg;
    return {
      connected: CONNECTED.has(connState),
      file: store.helloMsg ? store.helloMsg.file : false,
      loading: st ? st.loading : false,
      detailStart: store.detailStart,
      lod: timeline.lodProbe(),
      conn: connState,
      live: timeline.live,
      span: timeline.span,
      t0: timeline.t0,
      t1: timeline.t1,
      events: store.events,
      frames: store.frames,
      missedFrames: store.missedFrames,
      lost: st ? st.lost : 0,
      notKept: st ? st.notKept : 0,
      truncated: st ? st.truncated : false,
      connText: $('conn').textContent,
      partial: !$('partial').hidden,
      partialText: $('partial').hidden ? '' : $('partial').textContent,
      cover: store.statsMsg ? store.statsMsg.cover : null,
      owner: $('proc-owner').hidden ? '' : $('proc-owner').textContent,
      gapsSeen: store.gapsSeen,
      gaps: timeline.findGap(),
      thinned: st ? st.thinned : 0,
      hidden: st ? st.hidden : 0,
      offered: st ? st.offered : 0,
      serverEvents: st ? st.events : 0,
      queued: st ? st.queued : 0,
      sent: st ? st.sent : 0,
      fps: perf.fps,
      drawsPerSec: perf.drawsPerSec || 0,
      rafCount: perf.rafCount,
      draws: timeline.draws || 0,   /* frames the timeline painted: a test waits for the one after its zoom */
      decodeErrors,
      /* GPU devices' header rows, each with its lanes, and the flow arrows last drawn. */
      groups: timeline.tracks.filter((t) => t.kind === 'group').map((t) => ({ title: t.title, sub: t.sub, y: t.y, lanes: t.lanes.map((L) => L.name) })),
      flowsDrawn: timeline.flowsDrawn || 0,
      lanes: store.laneOrder.map((L) => ({ id: L.id, name: L.name, tid: L.tid, alive: L.alive, depth: L.maxDepth,
        kind: L.kind, device: L.device, stream: L.stream,
        pid: store.procOf(L) ? store.procOf(L).pid : store.helloMsg ? store.helloMsg.pid : 0,
        lastTs: L.lastTs, slices: L.rows.reduce((n, r) => n + r.count, 0),
        firstTs: L.rows.reduce((t, r) => (r.count ? Math.min(t, r.s[r.lo]) : t), Infinity) })),
      procs: store.helloMsg ? store.helloMsg.procs : [],
      now: store.liveNow(),
      lanesRetired: store.lanesRetired,
      threadsFolded: store.threadsFolded,
      offLane: store.offLane,
      nonFinite: store.nonFinite,
      nolane: st ? st.nolane : 0,
      lanesText: $('m-lanes').textContent,
      labels: [...timeline.labels],
      topRows: store.statsMsg ? store.statsMsg.rows.map((r) => store.name(r.name)) : [],
      top: store.statsMsg ? store.statsMsg.rows.map((r) => ({ name: store.name(r.name), totalFrac: r.totalFrac, calls: r.calls })) : [],
      topMarked: [...document.querySelectorAll('#top-body tr:not([hidden]) .pmark')].filter((e) => e.textContent === PARTIAL_MARK).length,
      flameSub: $('flame-sub').textContent,
      folded: nameFold.on,
      /* The top table as shown (folded or not), and the rows it was made
       * from (the STATS it shows, which may be older than statsMsg). */
      tableRows: [...document.querySelectorAll('#top-body tr:not([hidden])')].map((tr, i) => ({
        name: table.shown[i].label, shown: tr.cells_[0].tx.textContent, calls: table.shown[i].calls, p50: tr.cells_[7].textContent })),
      tableFrom: table.stats ? table.stats.rows.map((r) => ({ name: store.name(r.name), calls: r.calls })) : [],
      flameLabels: flame.nodes.slice(1).map((n) => store.label(n.name)),
      flameNodes: flame.nodes.length,
    };
  },
  /* The frame loop: an animation frame asked for, or asleep on a timer. */
  loop: () => ({ frameAsked, asleep: !frameAsked && sleepTimer !== 0 }),
  findSlice: (name, minWidth) => timeline.findSlice(name, minWidth),
  fitRun: () => timeline.fitRun(),
  lodHatchedAt: (x) => timeline.lodHatchedAt(x),
  counterPixelsAt: (x) => timeline.counterPixelsAt(x),
  findInstant: (name) => timeline.findInstant(name),
  checkRepaint: () => timeline.checkRepaint(),
  get fileView() { return fileView; },
};

showMode(true);
connect();
wake();
