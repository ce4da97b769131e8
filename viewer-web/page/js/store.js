/* store.js -- what the page knows: lanes of slices, instants, counters and
 * flows, in typed arrays, bounded in memory.
 *
 * The Store is the decoder's sink.  A slice is stored when it ends, in the
 * row of its depth; in one row slices never overlap and end in order, so
 * both their starts and their ends are sorted and a view finds its first
 * slice by binary search.  Open slices live on the lane's stack until
 * their END.  Pairing follows docs/web.md ("Pairing"), the server's rules:
 * each chunk starts with the lane's stack as the server has it, so a page
 * that missed frames (thinned) or just joined rebuilds its stack from it.
 *
 * Where recorder-web lost entries of a lane, the chunk after the loss
 * says how many and over which stretch (a gap: from the lane's last event
 * before the loss to its first after it, nothing is known); the lane
 * keeps its gaps for the timeline to draw apart from idle time.  Slices
 * never span a gap: after a loss the server's stack starts empty.  So the
 * only figure the page computes itself, a slice's self time, comes from
 * children read in the same stretch as the slice.
 *
 * Lanes come and go with THREADS messages: recorder-web keeps a bounded
 * table and retires the oldest exited lanes (docs/web.md, "Bounds"); a
 * retired lane's data goes with it.  Events that arrive for a lane the
 * page does not have (retired while they were on their way) are counted
 * in offLane and not stored.
 *
 * Detail is bounded by items, not by time: the oldest goes once ITEMS_MAX
 * is passed.  What is older than the detail kept -- evicted, or from
 * before this page joined -- is drawn from the server's summary of the
 * whole run (LOD, lod.js), marked as summary only; detailStart says where
 * the detail begins. */

const MAX_STACK = 128;
const SLICE_CUT = 1;          /* closed by an outer scope's END: its own END was lost */
const HISTORY_MAX_NS = Infinity;  /* no time limit on the detail... */
const ITEMS_MAX = 10e6;       /* ...but at most this many stored items (~250 MB) */

/* Growable columns with a moving start (lo): old items are evicted by
 * advancing lo, and compacted away when that wastes half the space. */
class Columns {
  constructor(kinds) {
    this.kinds = kinds;
    this.cap = 16;          /* grows by doubling; most lanes of short threads stay small */
    this.lo = 0;
    this.n = 0;
    this.cols = kinds.map((K) => new K(this.cap));
  }
  get count() { return this.n - this.lo; }
  reserve() {
    if (this.n < this.cap) return;
    if (this.lo >= this.cap / 2) {
      for (const c of this.cols) c.copyWithin(0, this.lo, this.n);
      this.n -= this.lo;
      this.lo = 0;
      return;
    }
    this.cap *= 2;
    this.cols = this.cols.map((c, i) => {
      const d = new this.kinds[i](this.cap);
      d.set(c.subarray(0, this.n));
      return d;
    });
    this.onGrow();
  }
  onGrow() {}
  /* First index in [from, to) whose column k value is >= v (sorted
   * column); from and to default to the whole live range. */
  lowerBound(k, v, from, to) {
    const a0 = this.cols[k];
    let a = from === undefined ? this.lo : from, b = to === undefined ? this.n : to;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (a0[m] < v) a = m + 1;
      else b = m;
    }
    return a;
  }
  /* Drop items whose sorted column k is below v; returns how many. */
  evict(k, v) {
    const i = this.lowerBound(k, v);
    const gone = i - this.lo;
    this.lo = i;
    if (this.lo === this.n) this.lo = this.n = 0;
    return gone;
  }
}

/* Slices of one depth of one lane: start, end, name, flags. */
class Row extends Columns {
  constructor() {
    super([Float64Array, Float64Array, Int32Array, Uint8Array]);
    this.bind();
  }
  bind() { [this.s, this.e, this.nm, this.fl] = this.cols; }
  onGrow() { this.bind(); }
  reserve() { super.reserve(); this.bind(); }
  push(s, e, nm, fl) {
    if (this.n === this.cap) this.reserve();
    const i = this.n++;
    this.s[i] = s; this.e[i] = e; this.nm[i] = nm; this.fl[i] = fl;
  }
}

/* Instants of a lane: time, name, and where its message lies in a byte
 * arena.  Messages stay UTF-8 until someone hovers one: decoding a string
 * per instant was a fifth of the page's time at a million events/s. */
class Instants extends Columns {
  constructor() {
    super([Float64Array, Int32Array, Int32Array, Uint8Array]);
    this.arena = new Uint8Array(256);
    this.used = 0;
    this.bind();
  }
  bind() { [this.t, this.nm, this.mo, this.ml] = this.cols; }
  reserve() {
    const lo = this.lo;
    const start = lo < this.n ? this.mo[lo] : this.used;
    super.reserve();
    this.bind();
    if (lo > 0 && this.lo === 0) {
      /* The columns moved down: so do the live messages. */
      this.arena.copyWithin(0, start, this.used);
      this.used -= start;
      for (let i = 0; i < this.n; i++) this.mo[i] -= start;
    }
  }
  push(t, nm, bytes) {
    if (this.n === this.cap) this.reserve();
    const len = bytes ? Math.min(bytes.length, 255) : 0;
    if (this.used + len > this.arena.length) {
      const a = new Uint8Array(Math.max(this.arena.length * 2, this.used + len));
      a.set(this.arena.subarray(0, this.used));
      this.arena = a;
    }
    if (len) this.arena.set(len === bytes.length ? bytes : bytes.subarray(0, len), this.used);
    const i = this.n++;
    this.t[i] = t; this.nm[i] = nm; this.mo[i] = this.used; this.ml[i] = len;
    this.used += len;
  }
  msg(i) { return this.ml[i] ? utf8(this.arena.subarray(this.mo[i], this.mo[i] + this.ml[i])) : ''; }
  evict(k, v) {
    const gone = super.evict(k, v);
    if (this.n === 0) this.used = 0;
    return gone;
  }
}

/* Flow points of a lane, each with the point before it in its flow. */
class Flows extends Columns {
  constructor() {
    super([Float64Array, Uint8Array, Int16Array, Int32Array, Float64Array, Int16Array]);
    this.bind();
  }
  bind() { [this.t, this.kind, this.depth, this.pLane, this.pT, this.pDepth] = this.cols; }
  reserve() { super.reserve(); this.bind(); }
  push(t, kind, depth, pLane, pT, pDepth) {
    this.reserve();
    const i = this.n++;
    this.t[i] = t; this.kind[i] = kind; this.depth[i] = depth;
    this.pLane[i] = pLane; this.pT[i] = pT; this.pDepth[i] = pDepth;
  }
}

/* One counter's values from one lane. */
class Series extends Columns {
  constructor() {
    super([Float64Array, Float64Array]);
    this.bind();
  }
  bind() { [this.t, this.v] = this.cols; }
  reserve() { super.reserve(); this.bind(); }
  push(t, v) {
    this.reserve();
    const i = this.n++;
    this.t[i] = t; this.v[i] = v;
  }
}

/* A lane's gaps: where entries were lost, from, to, and how many (by
 * cause).  They come in time order and do not overlap, so both ends are
 * sorted (store.chunk keeps them so whatever the times say). */
class Gaps extends Columns {
  constructor() {
    super([Float64Array, Float64Array, Float64Array, Float64Array]);
    this.bind();
  }
  bind() { [this.a, this.b, this.over, this.drop] = this.cols; }
  reserve() { super.reserve(); this.bind(); }
  push(a, b, over, drop) {
    this.reserve();
    const i = this.n++;
    this.a[i] = a; this.b[i] = b; this.over[i] = over; this.drop[i] = drop;
  }
  get lastEnd() { return this.n > this.lo ? this.b[this.n - 1] : -Infinity; }
}

class Lane {
  constructor(id) {
    this.id = id;
    this.slot = 0; this.gen = 0; this.tid = 0; this.name = ''; this.alive = true;
    /* What it records (THREADS, protocol 6): LANE_KIND; a GPU lane's device and stream. */
    this.kind = 0; this.device = 0; this.stream = 0;
    this.rows = [];
    this.stkName = new Int32Array(MAX_STACK);
    this.stkTs = new Float64Array(MAX_STACK);
    this.depth = 0;
    this.maxDepth = 0;
    this.instants = new Instants();
    this.flows = new Flows();
    this.gaps = new Gaps();
    this.lastTs = 0;
  }
  row(d) {
    let r = this.rows[d];
    if (!r) {
      for (let i = this.rows.length; i <= d; i++) this.rows[i] = new Row();
      r = this.rows[d];
    }
    return r;
  }
  get label() { return this.name || (this.tid > 0 ? 'thread ' + this.tid : 'slot ' + this.slot); }
  get gpu() { return this.kind === LANE_KIND.GPU_STREAM || this.kind === LANE_KIND.GPU_DEVICE; }
}

class Counter {
  constructor(name) {
    this.name = name;
    this.series = new Map();  /* lane id -> Series */
    this.last = 0;
    this.lastT = -Infinity;
    this.min = Infinity;
    this.max = -Infinity;
  }
}

class Store {
  constructor() { this.reset(); }

  reset() {
    this.names = [''];
    this.latMsgs = new Map();   /* name id -> its LATENCY answer (latseries.js) */
    this.latVersion = 0;
    this.lanes = new Map();   /* id -> Lane */
    this.laneOrder = [];
    this.lanesRetired = 0;    /* lanes recorder-web retired, in all (THREADS) */
    this.threadsFolded = 0;   /* threads it gave no lane: too many alive at once */
    this.offLane = 0;         /* events received for lanes this page does not have */
    this.nonFinite = 0;       /* counter values that were not finite numbers */
    this.counters = new Map();  /* name id -> Counter */
    this.counterOrder = [];
    this.flowLast = new Map();
    this.helloMsg = null;    /* the latest HELLO, STATUS and STATS */
    this.statusMsg = null;
    this.lostBase = null;     /* STATUS's lost when this page connected */
    this.statsMsg = null;
    this.cur = null;
    this.events = 0;          /* received */
    this.frames = 0;
    this.lastSeq = 0;
    this.missedFrames = 0;    /* gaps in EVENTS sequence numbers */
    this.missedSpans = [];    /* [from, to, frames]: when they were missed (range statistics) */
    this.lastBatchNow = 0;
    this.heldFrom = Infinity; /* the earliest time this page has events from */
    this.orphanEnds = 0;
    this.droppedOpen = 0;     /* open slices a resync proved ended unseen */
    this.lossChunks = 0;
    this.gapsSeen = 0;        /* gaps received (the timeline draws them) */
    this.now = 0;             /* the source's clock at the last message */
    this.nowAt = 0;           /* performance.now() then */
    this.maxTs = 0;
    this.minTs = Infinity;
    this.historyNs = HISTORY_MAX_NS;
    this.historyStart = -Infinity;   /* detail older than this was evicted */
    this.firstBase = Infinity;       /* the first EVENTS frame's time: no detail before */
    this.detailEnd = Infinity;       /* a capture file's window (fileview.js): no detail after */
    this.lodMsg = null;              /* the run's summary (LOD) */
    this.items = 0;
    this.version = 0;         /* bumps with every change a view shows */
    this.changedFrom = -Infinity;  /* earliest time that changed since the view last took it */
    this.layoutVersion = 0;   /* bumps when lanes or tracks change shape */
  }

  name(id) { return this.names[id] !== undefined ? this.names[id] : '#' + id; }
  /* The name as shown: with layer numbers folded when the page says so. */
  label(id) { return nameFold.label(this.name(id)); }

  /* A counter's track, made (and laid out) the first time its name comes,
   * from an event (counter(), the protocol's) or from the file's summary. */
  counterTrack(name) { return this.track(this.counters, this.counterOrder, name, Counter); }

  lane(id) { return this.track(this.lanes, this.laneOrder, id, Lane); }

  /* map's track for key, made as a Kind (appended to order, the layout
   * redone) the first time it is asked for. */
  track(map, order, key, Kind) {
    let t = map.get(key);
    if (!t) {
      t = new Kind(key);
      map.set(key, t);
      order.push(t);
      this.layoutVersion++;
    }
    return t;
  }

  /* Forget lanes and everything drawn in them. */
  dropLanes(ids) {
    if (!ids.size) return;
    let gone = 0;
    for (const id of ids) {
      const L = this.lanes.get(id);
      if (!L) continue;
      this.lanes.delete(id);
      for (const r of L.rows) gone += r.count;
      gone += L.instants.count + L.flows.count + L.gaps.count;
      for (const c of this.counterOrder) {
        const S = c.series.get(id);
        if (S) { gone += S.count; c.series.delete(id); }
      }
      if (this.cur === L) this.cur = null;
    }
    this.laneOrder = this.laneOrder.filter((L) => !ids.has(L.id));
    this.items = Math.max(0, this.items - gone);
    this.layoutVersion++;
  }

  /* ---- the decoder's sink ---- */
  hello(h) { this.helloMsg = h; this.setNow(h.now); }
  strings(first, names) {
    for (let i = 0; i < names.length; i++) this.names[first + i] = names[i];
    this.version++;
    this.changedFrom = -Infinity;
  }
  threads(msg) {
    const drop = new Set(msg.retired);
    if (msg.full) {
      const listed = new Set(msg.lanes.map((t) => t.id));
      for (const L of this.laneOrder) if (!listed.has(L.id)) drop.add(L.id);
    }
    this.dropLanes(drop);
    this.lanesRetired = msg.retiredTotal;
    this.threadsFolded = msg.foldedTotal;
    for (const t of msg.lanes) {
      const L = this.lane(t.id);
      if (L.name !== t.name || L.alive !== t.alive || L.tid !== t.tid || L.kind !== t.kind || L.device !== t.device) this.layoutVersion++;
      /* An unknown kind is a thread (docs/format.md, "Lanes"). */
      const kind = t.kind < LANE_KINDS ? t.kind : LANE_KIND.THREAD;
      Object.assign(L, { slot: t.slot, gen: t.gen, tid: t.tid, alive: t.alive, name: t.name, kind, device: t.device, stream: t.stream });
    }
    /* Each program's threads in slot order (a slot's generations oldest
     * first), then its NVTX range lanes, then its GPU lanes by device: the
     * device's own lane, then its streams. */
    const key = (L) => [this.procIndex(L), L.gpu ? 2 : L.kind === LANE_KIND.RANGES ? 1 : 0, L.gpu ? L.device : 0,
      L.kind === LANE_KIND.GPU_STREAM ? 1 : 0, L.kind === LANE_KIND.GPU_STREAM ? L.stream : 0, L.slot, L.gen];
    const keys = new Map(this.laneOrder.map((L) => [L, key(L)]));
    this.laneOrder.sort((a, b) => {
      const ka = keys.get(a), kb = keys.get(b);
      for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i] - kb[i];
      return 0;
    });
    this.version++;
    this.changedFrom = -Infinity;
  }
  status(s) {
    /* lost as the page first saw it: the header says how much since. */
    if (this.lostBase === null) this.lostBase = s.lost;
    this.statusMsg = s;
    this.setNow(s.now);
  }
  stats(s) { this.statsMsg = s; }
  lod(m) {
    this.lodMsg = m;
    /* A counter is drawn wherever the summary has it (lod.js), on a scale
     * that holds its summary's values too. */
    for (const [name, C] of m.counters || []) {
      const c = this.counterTrack(name);
      for (let i = 0; i < C.count; i++) {
        if (C.min[i] < c.min) c.min = C.min[i];
        if (C.max[i] > c.max) c.max = C.max[i];
      }
    }
    this.version++;
    this.changedFrom = -Infinity;   /* the summary is drawn everywhere detail is not */
  }
  /* Where this page's detail begins: before it, only the summary. */
  get detailStart() { return Math.max(this.firstBase, this.historyStart); }
  pong() {}
  latency(m) {
    this.latMsgs.set(m.name, m);
    this.latVersion++;
  }
  setNow(now) {
    if (now >= this.now) {
      this.now = now;
      this.nowAt = performance.now();
    }
  }
  batch(seq, base, now) {
    if (this.lastSeq && seq > this.lastSeq + 1) {
      this.missedFrames += seq - this.lastSeq - 1;
      /* Where: range statistics over that stretch are partial. */
      this.missedSpans.push([this.lastBatchNow, now, seq - this.lastSeq - 1]);
      if (this.missedSpans.length > 4096) this.missedSpans.shift();
    }
    if (base < this.heldFrom) this.heldFrom = base;
    this.lastBatchNow = now;
    this.lastSeq = seq;
    this.frames++;
    if (base < this.firstBase) this.firstBase = base;
    this.setNow(now);
  }
  chunk(laneId, flags, names, times, loss) {
    /* recorder-web announces every lane before its first chunk: one the
     * page lacks was retired, and its events are counted, not kept. */
    const L = this.lanes.get(laneId) || null;
    this.cur = L;
    if (!L) return;
    if (flags & CHUNK_LOSS) this.lossChunks++;
    if (loss) this.gap(L, loss);
    /* Keep the open slices both sides agree on; the rest of ours ended
     * while we were not looking, and the rest of theirs began then. */
    const d = Math.min(names.length, MAX_STACK);
    let k = 0;
    const kd = Math.min(L.depth, MAX_STACK);
    while (k < d && k < kd && L.stkName[k] === names[k] && L.stkTs[k] === times[k]) k++;
    if (kd > k) this.droppedOpen += kd - k;
    if (k < kd || k < d) {
      /* Open slices changed: repaint from the earliest of them. */
      let from = Infinity;
      for (let i = k; i < kd; i++) from = Math.min(from, L.stkTs[i]);
      for (let i = k; i < d; i++) from = Math.min(from, times[i]);
      if (from < this.changedFrom) this.changedFrom = from;
    }
    for (let i = k; i < d; i++) {
      L.stkName[i] = names[i];
      L.stkTs[i] = times[i];
    }
    L.depth = names.length;
    if (L.depth > L.maxDepth) { L.maxDepth = Math.min(L.depth, MAX_STACK); this.layoutVersion++; }
  }
  gap(L, loss) {
    /* Times from a hostile program may run backwards: a gap never starts
     * before the previous one ended, nor ends before it starts. */
    const a = Math.max(loss.from, L.gaps.lastEnd), b = Math.max(a, loss.to);
    if (!Number.isFinite(a) || !Number.isFinite(b)) return;
    L.gaps.push(a, b, loss.overwritten, loss.dropped);
    this.gapsSeen++;
    this.items++;
    /* Drawn as idle until now: repaint from its start. */
    if (a < this.changedFrom) this.changedFrom = a;
  }
  begin(t, name) {
    const L = this.cur;
    if (!L) { this.offLane++; return; }
    if (t < this.changedFrom) this.changedFrom = t;
    const d = L.depth++;
    if (d < MAX_STACK) {
      L.stkName[d] = name;
      L.stkTs[d] = t;
      if (d >= L.maxDepth) { L.maxDepth = d + 1; this.layoutVersion++; }
    }
    if (t > L.lastTs) L.lastTs = t;
  }
  end(t, name) {
    const L = this.cur;
    if (!L) { this.offLane++; return; }
    if (t < this.changedFrom) this.changedFrom = t;
    if (t > L.lastTs) L.lastTs = t;
    if (L.depth === 0) { this.orphanEnds++; return; }
    let k = L.depth - 1;
    if (name !== 0 && L.depth <= MAX_STACK && L.stkName[k] !== name) {
      let j = k - 1;
      while (j >= 0 && L.stkName[j] !== name) j--;
      if (j < 0) { this.orphanEnds++; return; }
      for (let i = k; i > j; i--) this.close(L, i, t, SLICE_CUT);
      k = j;
    }
    this.close(L, k, t, 0);
    L.depth = k;
  }
  close(L, d, t, flags) {
    if (d >= MAX_STACK) return;
    L.row(d).push(L.stkTs[d], t, L.stkName[d], flags);
    this.items++;
  }
  instant(t, name, msg) {
    const L = this.cur;
    if (!L) { this.offLane++; return; }
    if (t < this.changedFrom) this.changedFrom = t;
    L.instants.push(t, name, msg);
    this.items++;
    if (t > L.lastTs) L.lastTs = t;
  }
  counter(t, name, v) {
    if (!this.cur) { this.offLane++; return; }
    /* NaN or infinite (a buggy program): no track can show it, and one
     * would break the track's scale.  Counted, not stored. */
    if (!Number.isFinite(v)) { this.nonFinite++; return; }
    if (t < this.changedFrom) this.changedFrom = t;
    const c = this.counterTrack(name);
    let s = c.series.get(this.cur.id);
    if (!s) c.series.set(this.cur.id, (s = new Series()));
    s.push(t, v);
    if (t >= c.lastT) { c.lastT = t; c.last = v; }
    if (v < c.min || v > c.max) {
      this.changedFrom = -Infinity;   /* the track's scale changed */
      if (v < c.min) c.min = v;
      if (v > c.max) c.max = v;
    }
    this.items++;
  }
  flow(t, kind, key) {
    const L = this.cur;
    if (!L) { this.offLane++; return; }
    if (t < this.changedFrom) this.changedFrom = t;
    const depth = Math.min(L.depth, MAX_STACK);
    const prev = kind !== KIND.FLOW_BEGIN ? this.flowLast.get(key) : undefined;
    if (prev) L.flows.push(t, kind, depth, prev.lane, prev.t, prev.depth);
    else L.flows.push(t, kind, depth, -1, 0, 0);
    this.items++;
    if (kind === KIND.FLOW_END) {
      this.flowLast.delete(key);
    } else {
      this.flowLast.delete(key);
      this.flowLast.set(key, { lane: L.id, t, depth });
      if (this.flowLast.size > 65536) this.flowLast.delete(this.flowLast.keys().next().value);
    }
  }
  eventsDone(n) {
    this.events += n;
    const L = this.cur;
    /* A time past the source's clock is bogus: it must not move the end
     * of the timeline (1 s of slack for clock calibration). */
    if (L && L.lastTs > this.maxTs && L.lastTs <= this.now + 1e9) this.maxTs = L.lastTs;
    this.version++;
  }

  /* The source's clock now, extrapolated from the last message. */
  liveNow() {
    /* Nothing more will come: the timeline stops at the last event. */
    const st = this.statusMsg;
    if (st && (!st.alive || st.truncated)) return Math.max(this.maxTs, this.now);
    return this.now + (performance.now() - this.nowAt) * 1e6;
  }

  /* Forget what is older than the history the memory bound allows. */
  trim() {
    if (this.items > ITEMS_MAX)
      this.historyNs = Math.max(2e9, Math.min(this.historyNs, this.liveNow() - this.detailStart) * 0.7);
    else if (this.items < ITEMS_MAX * 0.5 && this.historyNs < HISTORY_MAX_NS)
      this.historyNs = Math.min(HISTORY_MAX_NS, this.historyNs * 1.1);
    const cut = this.liveNow() - this.historyNs;
    let gone = 0;
    for (const L of this.laneOrder) {
      for (const r of L.rows) gone += r.evict(1, cut);
      gone += L.instants.evict(0, cut);
      gone += L.flows.evict(0, cut);
      gone += L.gaps.evict(1, cut);
    }
    for (const c of this.counterOrder) for (const s of c.series.values()) gone += s.evict(0, cut);
    this.items = Math.max(0, this.items - gone);
    if (gone) {
      this.version++;
      this.changedFrom = -Infinity;   /* a view may have shown what went */
    }
    if (cut > this.historyStart) this.historyStart = cut;
  }

  /* The index of L's program in HELLO's procs (0 with one). */
  procIndex(L) {
    const p = this.helloMsg ? this.helloMsg.procs : null;
    let k = 0;
    while (p && k + 1 < p.length && L.slot >= p[k + 1].base) k++;
    return k;
  }

  /* Several programs (HELLO's procs): the one lane L belongs to, or null
   * when there is only one. */
  procOf(L) {
    const p = this.helloMsg ? this.helloMsg.procs : null;
    if (!p || p.length < 2) return null;
    let k = 0;
    while (k + 1 < p.length && L.slot >= p[k + 1].base) k++;
    return p[k];
  }

  /* The lowest depth with slices anywhere in a lane (for layout). */
  laneDepth(L) { return Math.max(L.maxDepth, 1); }
}
