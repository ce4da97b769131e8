/* fileview.js -- a capture file explored anywhere (docs/web.md, "Saved
 * traces"): the page asks recorder-web for the window in view (RANGE),
 * which reads that part of the file through its time index, and the
 * answer replaces the page's detail; the run's summary (lod.js) is drawn
 * only outside it, so it is a level of detail while zoomed out, not a
 * wall at the file's start.  And a file gets file controls (whole file,
 * start, end, where the view is) instead of Pause, "following" and
 * events/s, which mean nothing for a recording.
 *
 * A window is asked for when the view leaves the detail held and the
 * summary says it holds no more events than an answer carries (HELLO's
 * rangeBytes, at about BYTES_PER_EVENT each; more is the summary's
 * business); with half a view of margin on each side when that is cheap
 * (half an answer), so small pans need no question.  An unanswered question is asked again after ASK_AGAIN_MS. */

const BYTES_PER_EVENT = 5;
const ASK_AGAIN_MS = 3000;

/* The store's side: a RANGE answer is the detail from now on. */
class StoreRange {
  rangeBegin(h) {
    this.rangeSaved = { lastSeq: this.lastSeq, frames: this.frames, events: this.events };
    for (const L of this.laneOrder) {
      L.rows = [];
      L.instants = new Instants();
      L.flows = new Flows();
      L.gaps = new Gaps();
      L.depth = 0;
      L.lastTs = 0;
    }
    for (const c of this.counterOrder) c.series.clear();
    this.flowLast.clear();
    this.items = 0;
    this.cur = null;
  }
  rangeEnd(h, n) {
    Object.assign(this, this.rangeSaved);   /* the stream's counts are the stream's */
    this.rangeEvents = n;
    this.rangeAnswer = h;
    this.firstBase = h.from;
    this.historyStart = h.from;
    this.detailEnd = h.to;
    this.version++;
    this.changedFrom = -Infinity;
    this.layoutVersion++;
  }
}
mixInto(Store, StoreRange);

const fileView = {
  asked: null,        /* {id, t0, t1, at} */
  nextId: 1,
  answered: 0,

  /* Events the summary counts in [t0, t1) (a bucket cut by it, pro rata):
   * about what reading it would send. */
  lodEvents(t0, t1) {
    const m = store.lodMsg;
    return m ? lodEventsIn(m, t0, t1) : Infinity;
  },

  isFile() { return !!(store.helloMsg && store.helloMsg.file); },

  tick() {
    const h = store.helloMsg, st = store.statusMsg;
    this.controls();
    if (!h || !h.file || !st || st.loading || !store.lodMsg || !ws || ws.readyState !== WebSocket.OPEN) return;
    const a = timeline.t0, b = timeline.t1;
    /* Held (the server's times are whole ns: 1 ns of slack). */
    if (a >= store.detailStart - 1 && b <= store.detailEnd + 1) return;
    const m = store.lodMsg, end = store.liveNow(), w = b - a;
    const fits = (x, y, k) => this.lodEvents(x, y) * BYTES_PER_EVENT <= k * h.rangeBytes;
    let t0 = Math.max(m.t0, a - w / 2), t1 = Math.min(end, b + w / 2);
    /* The margin only when it is cheap (half an answer): a dense window
     * comes sooner without it. */
    if (!fits(t0, t1, 0.5)) { t0 = Math.max(m.t0, a); t1 = Math.min(end, b); }
    /* Zoomed out: the summary.  Up to twice an answer's worth: asked all
     * the same (the estimate is coarse; an answer cut short says where). */
    if (t1 <= t0 || !fits(t0, t1, 2)) return;
    const q = this.asked, now = performance.now(), ans = store.rangeAnswer;
    /* Asked for this view already: on its way, or answered (cut short of
     * it, the summary shows the rest: asking again would get the same). */
    const answered = q && ans && ans.id === q.id;
    if (q && q.t0 <= a && q.t1 >= b && (answered || now - q.at < ASK_AGAIN_MS)) return;
    this.asked = { id: this.nextId++, t0, t1, at: now };
    ws.send(encodeRangeAsk(this.asked.id, t0, t1));
  },

  /* File controls instead of the live ones. */
  controls() {
    const file = this.isFile();
    setHidden($('file-ctl'), !file);
    setHidden(pauseBtn, file);
    setHidden($('view-state'), file);
    setHidden($('view-state').nextElementSibling, file);   /* its separator */
    setHidden($('m-rate-box'), file);
    if (!file) return;
    /* On the ruler's clock (time since the program's start), clamped to the file. */
    const m = store.lodMsg, start = m ? m.t0 : 0, end = store.liveNow();
    const text = 't ' + fmtTime(Math.min(end, Math.max(start, timeline.t0)), 1e6) + ' – ' +
      fmtTime(Math.max(start, Math.min(end, timeline.t1)), 1e6) + ' of ' + fmtTime(end, 1e6);
    setText($('file-pos'), text);
  },

  /* Keep the span, move to the file's start or end. */
  goto(where) {
    const m = store.lodMsg, end = store.liveNow(), start = m ? m.t0 : store.detailStart;
    timeline.setLive(false);
    timeline.t1 = where === 'start' ? start + timeline.span : end;
    timeline.moved();
  },
};

$('btn-file-fit').addEventListener('click', () => { timeline.setLive(false); timeline.fitRun(); });
$('btn-file-start').addEventListener('click', () => fileView.goto('start'));
$('btn-file-end').addEventListener('click', () => fileView.goto('end'));
setInterval(() => fileView.tick(), 50);
