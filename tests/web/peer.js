/* peer.js -- a page without a browser: a WebSocket to recorder-web whose
 * messages go through the page's own decoder (page/js/protocol.js) into a
 * sink that counts what a test asks about. */
'use strict';
const path = require('path');
const { connect } = require('./wsclient');
const P = require(path.join(__dirname, '../../viewer-web/page/js/protocol.js'));

class Peer {
  constructor(ws) {
    this.ws = ws;
    this.helloMsg = null;
    this.names = [''];
    this.lanes = new Map();   /* the lane table as THREADS messages left it */
    this.laneIds = new Set(); /* every lane id ever announced */
    this.threadsMsgs = 0;
    this.retiredTotal = 0;
    this.foldedTotal = 0;
    this.events = 0;
    this.frames = 0;
    this.kinds = {};
    this.begun = new Set();   /* scope names seen in BEGIN events */
    this.statusMsg = null;
    this.statusEvents = null; /* events received when the last STATUS arrived */
    this.statsMsg = null;
    this.pongs = [];
    this.lodMsg = null;       /* the latest LOD (the run's summary) */
    this.lods = 0;
    this.latMsgs = [];        /* LATENCY answers, in order */
    this.ranges = [];         /* RANGE answers, in order: the header and its events */
    this.errors = [];
    this.seqs = [];
    this.tMin = Infinity;     /* the earliest and latest event times decoded */
    this.tMax = -Infinity;
    this.badTimes = 0;        /* times that are not finite numbers */
    this.skipEvents = false;  /* opts.skipEvents: EVENTS counted, not decoded */
    this.eventBytes = 0;      /* the EVENTS messages' bytes (counted either way) */
    ws.on('message', (m) => {
      try {
        if (m[0] === P.MSG.EVENTS) {
          this.eventBytes += m.length;
          if (this.skipEvents) { this.frames++; return; }
        }
        P.decodeMessage(m, this);
      } catch (e) {
        this.errors.push(String(e));
      }
    });
  }
  /* opts.skipEvents: a client whose decoding would run on another
   * machine (bench/watch's web-remote): EVENTS messages are read off the
   * socket whole and counted, not decoded; everything else is. */
  static async open(port, token, opts = {}) {
    const r = await connect({ port, path: '/ws?t=' + token, origin: opts.origin, host: opts.host });
    if (!r.ws) throw new Error('WebSocket refused: ' + r.status);
    const p = new Peer(r.ws);
    p.skipEvents = !!opts.skipEvents;
    return p;
  }
  /* the sink (its methods are the message names, so the data is *Msg) */
  hello(h) { this.helloMsg = h; }
  strings(first, names) { names.forEach((n, i) => { this.names[first + i] = n; }); }
  threads(t) {
    this.threadsMsgs++;
    if (t.full) this.lanes.clear();
    for (const id of t.retired) this.lanes.delete(id);
    for (const l of t.lanes) { this.lanes.set(l.id, l); this.laneIds.add(l.id); }
    this.retiredTotal = t.retiredTotal;
    this.foldedTotal = t.foldedTotal;
  }
  stats(s) { this.statsMsg = s; }
  status(s) { this.statusMsg = s; this.statusEvents = this.events; }
  pong(n) { this.pongs.push(n); }
  lod(m) { this.lodMsg = m; this.lods++; }
  latency(m) { this.latMsgs.push(m); }
  rangeBegin() {}
  rangeEnd(h, n) { this.ranges.push(Object.assign({ events: n }, h)); }
  batch(seq) { this.frames++; this.seqs.push(seq); }
  chunk() {}
  time(t) {
    if (!Number.isFinite(t)) this.badTimes++;
    if (t < this.tMin) this.tMin = t;
    if (t > this.tMax) this.tMax = t;
  }
  begin(t, name) { this.time(t); this.kinds.begin = (this.kinds.begin || 0) + 1; this.begun.add(this.names[name]); }
  end(t) { this.time(t); this.kinds.end = (this.kinds.end || 0) + 1; }
  instant(t) { this.time(t); this.kinds.instant = (this.kinds.instant || 0) + 1; }
  counter(t) { this.time(t); this.kinds.counter = (this.kinds.counter || 0) + 1; }
  flow(t) { this.time(t); this.kinds.flow = (this.kinds.flow || 0) + 1; }
  eventsDone(n) { this.events += n; }

  laneNames() { return [...this.lanes.values()].map((l) => l.name); }
  ping(nonce) { this.ws.send(P.encodePing(nonce)); }
  setWindow(w) { this.ws.send(P.encodeSetWindow(w)); }
  setHidden(h) { this.ws.send(P.encodeHidden(h)); }
  askLatency(id) { this.ws.send(P.encodeLatencyAsk(id)); }
  askRange(id, t0, t1) { this.ws.send(P.encodeRangeAsk(id, t0, t1)); }
  /* The answer to RANGE question id, once it came (null after ms). */
  async range(id, t0, t1, ms = 20000) {
    this.askRange(id, t0, t1);
    const end = Date.now() + ms;
    for (;;) {
      const r = this.ranges.find((x) => x.id === id);
      if (r || Date.now() > end || this.closed) return r || null;
      await new Promise((res) => setTimeout(res, 20));
    }
  }
  get closed() { return this.ws.closed; }
  close() { this.ws.close(); }
}

module.exports = { Peer, P };
