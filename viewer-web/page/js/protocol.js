/* protocol.js -- decoding recorder-web's binary messages (docs/web.md,
 * "Protocol").  No DOM here: the node tests load this file too.
 * The encoder is viewer-web/wire.h and its callers; they change together. */

const MSG = { HELLO: 1, STRINGS: 2, THREADS: 3, EVENTS: 4, STATS: 5, STATUS: 6, PONG: 7, LOD: 8, LATENCY: 9, RANGE: 10 };
const CMSG = { SET_WINDOW: 0x81, PING: 0x82, LATENCY: 0x83, RANGE: 0x84, HIDDEN: 0x85 };
const KIND = { BEGIN: 1, END: 2, INSTANT: 3, COUNTER: 4, FLOW_BEGIN: 5, FLOW_STEP: 6, FLOW_END: 7 };
const CHUNK_LOSS = 1;
const HELLO_FOREIGN = 1, HELLO_FILE = 2;
const STATUS_ALIVE = 1, STATUS_CLOSED = 2, STATUS_TRUNCATED = 4, STATUS_LOADING = 8;
const LOD_FLAG_LOST = 1;
const LOD_FLAG_VALUES = 1;   /* a counter's bucket: min, max and last follow */
const LOD_BUCKETS_MAX = 65536;   /* more is malformed (the server sends 512) */
const THREADS_FULL = 1;
/* What a lane records (THREADS; include/recorder.h, enum rec_lane_kind). */
const LANE_KIND = { THREAD: 0, GPU_STREAM: 1, GPU_DEVICE: 2, RANGES: 3 };
const LANE_KINDS = 4;
const PROTOCOL_VERSION = 9;
const RANGE_CUT = 1;   /* a RANGE answer stops short of what was asked: at its `to` */
const LAT_FLAG_KNOWN = 1;
const SUBPROTOCOL = 'recorder-web.v' + PROTOCOL_VERSION;

const utf8Decoder = new TextDecoder('utf-8');

function utf8(bytes) {
  /* Most names are short ASCII: skip the decoder's call overhead. */
  if (bytes.length < 48) {
    let ascii = true;
    for (let i = 0; i < bytes.length; i++) if (bytes[i] > 0x7e || bytes[i] < 0x20) { ascii = false; break; }
    if (ascii) return String.fromCharCode.apply(null, bytes);
  }
  return utf8Decoder.decode(bytes);
}

/* Reads one message; every read checks bounds and throws a RangeError on
 * a truncated or malformed message. */
class WireReader {
  constructor(buf) {
    this.b = buf instanceof Uint8Array ? buf : new Uint8Array(buf);
    this.dv = new DataView(this.b.buffer, this.b.byteOffset, this.b.byteLength);
    this.p = 0;
    this.t = 0;   /* decodeOne's result time */
  }
  get left() { return this.b.length - this.p; }
  u8() {
    if (this.p >= this.b.length) throw new RangeError('truncated message');
    return this.b[this.p++];
  }
  varint() {
    const b = this.b;
    let p = this.p;
    if (p >= b.length) throw new RangeError('truncated varint');
    let x = b[p++];
    if (x < 128) { this.p = p; return x; }
    x &= 127;
    let mul = 128;
    for (;;) {
      if (p >= b.length) throw new RangeError('truncated varint');
      const c = b[p++];
      x += (c & 127) * mul;
      if (c < 128) break;
      mul *= 128;
      if (mul > 1.9e19) throw new RangeError('varint too long');
    }
    this.p = p;
    return x;
  }
  svarint() {
    const p0 = this.p;
    const n = this.varint();
    if (n <= Number.MAX_SAFE_INTEGER) return n % 2 ? -(n + 1) / 2 : n / 2;
    /* Past 2^53 a double has lost the low (sign) bit: decode it exactly
     * (only absurd times get here: deltas of more than 52 days). */
    this.p = p0;
    let x = 0n, shift = 0n, c;
    do {
      c = this.b[this.p++];
      x |= BigInt(c & 127) << shift;
      shift += 7n;
    } while (c >= 128);
    return Number(x & 1n ? -((x + 1n) >> 1n) : x >> 1n);
  }
  f64() {
    if (this.p + 8 > this.b.length) throw new RangeError('truncated f64');
    const v = this.dv.getFloat64(this.p, true);
    this.p += 8;
    return v;
  }
  u32() {
    if (this.p + 4 > this.b.length) throw new RangeError('truncated u32');
    const v = this.dv.getUint32(this.p, true);
    this.p += 4;
    return v;
  }
  bytes(n) {
    if (this.p + n > this.b.length) throw new RangeError('truncated bytes');
    const s = this.b.subarray(this.p, this.p + n);
    this.p += n;
    return s;
  }
  str() { return utf8(this.bytes(this.varint())); }
}

/* Flow ids are up to 56 bits: exact as a number below 2^53, else a string. */
function flowKey(lo, hi) { return hi < 2097152 ? hi * 4294967296 + lo : hi + ':' + lo; }

/* EVENTS: streamed into the sink, no object per event.  The sink gets
 * batch(seq, base, now), chunk(lane, flags, stackNames, stackTimes, loss)
 * (loss: null, or {overwritten, dropped, from, to}: entries lost on the
 * lane between its event at `from` and the chunk's first, at `to`) and
 * then, for that lane, begin(t, name), end(t, name), instant(t, name,
 * msgBytes), counter(t, name, value), flow(t, kind, key).  msgBytes is
 * the message's UTF-8, valid during the call only (utf8() decodes it).
 * Returns the number of events.
 *
 * This loop runs a million times a second: begin and end events, nearly
 * all of them, are decoded inline when their varints are one or two
 * bytes and the message has room; anything else takes the checked path. */
function decodeEvents(r, sink) {
  const seq = r.varint(), base = r.f64(), now = r.f64();
  const chunks = r.varint();
  sink.batch(seq, base, now);
  const b = r.b, len = b.length;
  let total = 0;
  for (let c = 0; c < chunks; c++) {
    const lane = r.varint(), flags = r.u8();
    let loss = null;
    if (flags & CHUNK_LOSS) {
      const overwritten = r.varint(), dropped = r.varint(), from = base + r.svarint();
      loss = { overwritten, dropped, from, to: base + r.svarint() };
    }
    const depth = r.varint();
    if (depth > 128) throw new RangeError('stack too deep');
    const names = new Array(depth), times = new Array(depth);
    for (let i = 0; i < depth; i++) {
      names[i] = r.varint();
      times[i] = base + r.svarint();
    }
    sink.chunk(lane, flags, names, times, loss);
    const n = r.varint();
    let t = base;
    for (let i = 0; i < n; i++) {
      let p = r.p;
      if (len - p >= 5) {
        const kind = b[p];
        if (kind <= 2) {
          /* kind, svarint dt (1-2 bytes), varint name (1-2 bytes) */
          let d = b[p + 1], q = p + 2;
          if (d >= 128) {
            const d2 = b[q++];
            if (d2 >= 128) { r.p = p; decodeOne(r, sink, t); t = r.t; continue; }
            d = (d & 127) | (d2 << 7);
          }
          let nm = b[q++];
          if (nm >= 128) {
            const n2 = b[q++];
            if (n2 >= 128) { r.p = p; decodeOne(r, sink, t); t = r.t; continue; }
            nm = (nm & 127) | (n2 << 7);
          }
          t += d & 1 ? -((d + 1) >>> 1) : d >>> 1;
          r.p = q;
          if (kind === 1) sink.begin(t, nm);
          else if (kind === 2) sink.end(t, nm);
          else throw new RangeError('unknown event kind 0');
          continue;
        }
      }
      decodeOne(r, sink, t);
      t = r.t;
    }
    total += n;
  }
  return total;
}

/* One event, every read checked; leaves its time in r.t. */
function decodeOne(r, sink, t) {
  const kind = r.u8();
  t += r.svarint();
  r.t = t;
  switch (kind) {
    case 1: sink.begin(t, r.varint()); break;
    case 2: sink.end(t, r.varint()); break;
    case 3: { const name = r.varint(); sink.instant(t, name, r.bytes(r.varint())); break; }
    case 4: { const name = r.varint(); sink.counter(t, name, r.f64()); break; }
    case 5: case 6: case 7: { const lo = r.varint(); sink.flow(t, kind, flowKey(lo, r.varint())); break; }
    default: throw new RangeError('unknown event kind ' + kind);
  }
}

function decodeHello(r) {
  const h = {
    version: r.u8(), pid: r.varint(), name: r.str(), path: r.str(), now: r.f64(),
    realNs0: r.f64(), maxThreads: r.varint(), ringEntries: r.varint(),
  };
  const f = r.u8();
  h.foreign = (f & HELLO_FOREIGN) !== 0;
  h.file = (f & HELLO_FILE) !== 0;
  h.ownerUid = r.varint();
  /* The programs, each with its first slot (several: PID1 PID2 ...). */
  const np = r.varint();
  if (np > 4096) throw new RangeError('too many programs');
  h.procs = [];
  for (let i = 0; i < np; i++) h.procs.push({ pid: r.varint(), name: r.str(), base: r.varint() });
  h.rangeBytes = r.varint();   /* a capture file: what a RANGE answer carries at most (0: none) */
  return h;
}

function decodeStrings(r) {
  const first = r.varint(), count = r.varint(), names = new Array(count);
  for (let i = 0; i < count; i++) names[i] = r.str();
  return { first, names };
}

/* THREADS: a delta (lanes new or changed, lanes retired) or, with
 * THREADS_FULL, the whole table (every lane not listed is gone). */
function decodeThreads(r) {
  const t = { full: (r.u8() & THREADS_FULL) !== 0, retiredTotal: r.varint(), foldedTotal: r.varint(), lanes: [], retired: [] };
  const n = r.varint();
  for (let i = 0; i < n; i++)
    t.lanes.push({ id: r.varint(), slot: r.varint(), gen: r.varint(), tid: r.svarint(), alive: r.u8() === 1, name: r.str(),
                  kind: r.u8(), device: r.varint(), stream: r.varint() });
  const k = r.varint();
  for (let i = 0; i < k; i++) t.retired.push(r.varint());
  return t;
}

/* STATS: the window's top table and call tree, computed by the server's
 * analysis model, with what they are computed from (cover): when entries
 * were lost in the window, every figure is partial, and the shares
 * (totalFrac, selfFrac: TOTAL% and SELF% / 100) are over the time the
 * decoded data covers (docs/web.md, "Lost, not kept, partial"). */
function decodeStats(r) {
  const s = { window: r.u8(), span: r.f64(), now: r.f64() };
  const decoded = r.varint(), lost = r.varint(), gapNs = r.f64(), decodedFrac = r.f64();
  s.cover = { decoded, lost, gapNs, decodedFrac, partial: lost > 0 };
  s.total = r.varint();
  s.rows = [];
  s.nodes = [];
  const nr = r.varint();
  for (let i = 0; i < nr; i++)
    s.rows.push({
      name: r.varint(), calls: r.varint(), rate: r.f64(), total: r.f64(), self: r.f64(), min: r.f64(),
      avg: r.f64(), max: r.f64(), p50: r.f64(), p95: r.f64(), p99: r.f64(), totalFrac: r.f64(), selfFrac: r.f64(),
    });
  const nn = r.varint();
  for (let i = 0; i < nn; i++)
    s.nodes.push({ name: r.varint(), parent: r.varint(), calls: r.varint(), total: r.f64(), self: r.f64(),
      totalFrac: r.f64(), selfFrac: r.f64() });
  return s;
}

function decodeStatus(r) {
  const s = { now: r.f64() };
  const f = r.u8();
  s.alive = (f & STATUS_ALIVE) !== 0;
  s.closed = (f & STATUS_CLOSED) !== 0;
  s.truncated = (f & STATUS_TRUNCATED) !== 0;
  s.loading = (f & STATUS_LOADING) !== 0;
  s.events = r.varint();
  /* lost (since recorder-web attached): overwritten + dropped + bad;
   * not kept: history the rings no longer held when it first read them. */
  s.overwritten = r.varint();
  s.dropped = r.varint();
  s.bad = r.varint();
  s.notKept = r.varint();
  s.lost = s.overwritten + s.dropped + s.bad;
  s.unsent = r.varint();
  s.offered = r.varint();
  s.thinned = r.varint();
  s.thinnedFrames = r.varint();
  s.sent = r.varint();
  s.queued = r.varint();
  s.clients = r.varint();
  s.nolane = r.varint();
  /* Threads that got no ring (every slot live, or /dev/shm full). */
  s.notRecorded = r.varint();
  /* Names recorded as <strings full> (the string table at its limit). */
  s.namesFull = r.varint();
  /* Times recorder-web's second thread read the rings while its reader
   * was busy adding up, and how often its buffer filled (the rest stayed
   * in the rings: lost only if overwritten, and then counted in lost). */
  s.spills = r.varint();
  s.spillsFull = r.varint();
  /* Events in frames recorder-web did not send this page while it was
   * hidden, less those it sent when the page was shown again. */
  s.hidden = r.varint();
  return s;
}

/* LOD: the run's summary per lane on one grid (docs/web.md, "History"):
 * bucket i of the grid covers [t0 + i*width, t0 + (i+1)*width).  Per lane
 * with data: its buckets first .. first+count-1, each with busy (0..255:
 * the share of the bucket inside top-level scopes, any at all >= 1), the
 * name of the scope that covered most of it, its events, and whether
 * entries were lost in it.  Then per counter with values (by name): its
 * buckets, each with the lowest, highest and last value recorded in it
 * (NaN where it has none). */
function decodeLod(r) {
  const m = { t0: r.f64(), width: r.f64(), n: r.varint(), lanes: new Map() };
  if (!(m.width > 0) || !Number.isFinite(m.t0) || m.n > LOD_BUCKETS_MAX) throw new RangeError('bad LOD grid');
  const nl = r.varint();
  for (let i = 0; i < nl; i++) {
    const id = r.varint(), first = r.varint(), count = r.varint();
    if (first + count > m.n) throw new RangeError('LOD lane past the grid');
    const L = { first, count, busy: new Uint8Array(count), top: new Int32Array(count),
      events: new Float64Array(count), lost: new Uint8Array(count) };
    for (let j = 0; j < count; j++) {
      L.busy[j] = r.u8();
      L.top[j] = Math.min(r.varint(), 0x7fffffff);
      L.events[j] = r.varint();
      L.lost[j] = r.u8() & LOD_FLAG_LOST;
    }
    m.lanes.set(id, L);
  }
  m.counters = new Map();
  const nc = r.varint();
  for (let i = 0; i < nc; i++) {
    const name = r.varint(), first = r.varint(), count = r.varint();
    if (first + count > m.n) throw new RangeError('LOD counter past the grid');
    const C = { first, count, min: new Float64Array(count).fill(NaN), max: new Float64Array(count).fill(NaN),
      last: new Float64Array(count).fill(NaN) };
    for (let j = 0; j < count; j++) {
      if (!(r.u8() & LOD_FLAG_VALUES)) continue;
      C.min[j] = r.f64();
      C.max[j] = r.f64();
      C.last[j] = r.f64();
    }
    m.counters.set(name, C);
  }
  return m;
}

/* LATENCY: one scope's duration histograms per bucket of the LOD grid
 * (docs/web.md, "Latency panel"): bin j of nbins holds durations in
 * [10^(j/bpd), 10^((j+1)/bpd)) ns.  Buckets with calls or loss only. */
function decodeLatency(r) {
  const m = { name: r.varint(), known: (r.u8() & LAT_FLAG_KNOWN) !== 0, leftOut: r.varint(), bpd: r.varint(),
    nbins: r.varint(), t0: r.f64(), width: r.f64(), buckets: [] };
  if (m.bpd < 1 || m.bpd > 1000 || m.nbins > 100000 || !Number.isFinite(m.t0) || !(m.width >= 0) || !Number.isFinite(m.width))
    throw new RangeError('bad LATENCY grid');
  const nb = r.varint();
  if (nb > LOD_BUCKETS_MAX) throw new RangeError('too many LATENCY buckets');
  for (let i = 0; i < nb; i++) {
    const B = { i: r.varint(), lost: (r.u8() & LOD_FLAG_LOST) !== 0, bins: [], counts: [], n: 0 };
    const nz = r.varint();
    if (B.i >= LOD_BUCKETS_MAX || nz > m.nbins) throw new RangeError('bad LATENCY bucket');
    for (let j = 0; j < nz; j++) {
      const bin = r.varint(), c = r.varint();
      if (bin >= m.nbins) throw new RangeError('LATENCY bin past the axis');
      B.bins.push(bin);
      B.counts.push(c);
      B.n += c;
    }
    m.buckets.push(B);
  }
  return m;
}

/* One message into the sink; returns its type.  Throws on anything
 * malformed or unknown (the page then closes and reconnects). */
function decodeMessage(buf, sink) {
  const r = new WireReader(buf);
  const type = r.u8();
  switch (type) {
    case MSG.HELLO: sink.hello(decodeHello(r)); break;
    case MSG.STRINGS: { const s = decodeStrings(r); sink.strings(s.first, s.names); break; }
    case MSG.THREADS: sink.threads(decodeThreads(r)); break;
    case MSG.EVENTS: sink.eventsDone(decodeEvents(r, sink)); break;
    case MSG.STATS: sink.stats(decodeStats(r)); break;
    case MSG.STATUS: sink.status(decodeStatus(r)); break;
    case MSG.PONG: sink.pong(r.u32()); break;
    case MSG.LOD: sink.lod(decodeLod(r)); break;
    case MSG.LATENCY: sink.latency(decodeLatency(r)); break;
    case MSG.RANGE: {
      /* A capture file's window, read on demand: it replaces the detail. */
      const h = { id: r.varint(), from: r.f64(), to: r.f64(), flags: r.u8() };
      h.cut = !!(h.flags & RANGE_CUT);
      sink.rangeBegin(h);
      sink.rangeEnd(h, decodeEvents(r, sink));
      break;
    }
    default: throw new RangeError('unknown message type ' + type);
  }
  if (r.left !== 0) throw new RangeError('trailing bytes in message type ' + type);
  return type;
}

function encodeSetWindow(w) { return new Uint8Array([CMSG.SET_WINDOW, w]); }
function encodeHidden(hidden) { return new Uint8Array([CMSG.HIDDEN, hidden ? 1 : 0]); }
function encodePing(nonce) {
  return new Uint8Array([CMSG.PING, nonce & 255, (nonce >>> 8) & 255, (nonce >>> 16) & 255, (nonce >>> 24) & 255]);
}

function encodeLatencyAsk(id) {
  return new Uint8Array([CMSG.LATENCY, id & 255, (id >>> 8) & 255, (id >>> 16) & 255, (id >>> 24) & 255]);
}

/* RANGE question: u32 id, f64 t0, f64 t1 (ns), little-endian. */
function encodeRangeAsk(id, t0, t1) {
  const b = new Uint8Array(21), v = new DataView(b.buffer);
  b[0] = CMSG.RANGE;
  v.setUint32(1, id >>> 0, true);
  v.setFloat64(5, t0, true);
  v.setFloat64(13, t1, true);
  return b;
}

if (typeof module === 'object' && module.exports)
  module.exports = { MSG, CMSG, KIND, CHUNK_LOSS, THREADS_FULL, LANE_KIND, LANE_KINDS, PROTOCOL_VERSION, SUBPROTOCOL, WireReader, decodeMessage, encodeSetWindow, encodeHidden, encodePing, encodeLatencyAsk, encodeRangeAsk, utf8 };
