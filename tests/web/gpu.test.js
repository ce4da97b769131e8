/* gpu.test.js -- GPU lanes over the wire (suite web; issue 19): recorder-web
 * on tests/gpu/fake_gpu --live (launch scopes with flows on its thread
 * "host"; kernels, a copy and a sync on "GPU0 stream 7" and "GPU1 stream
 * 13", written late; device lanes "GPU0" and "GPU1" with counters).
 * THREADS (protocol 6) says what each lane records: kind, device, stream;
 * the flow ids a launch begins on the host lane end on a stream lane. */
'use strict';
const { spawn } = require('child_process');
const { startServer, stop, check, main, until, need } = require('./harness');
const { Peer, P } = require('./peer');

/* fake_gpu --live prints "ready" once its first batch is delivered. */
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

/* A peer that notes, per lane, the flow ids begun and ended there. */
class FlowPeer extends Peer {
  constructor(ws) {
    super(ws);
    this.cur = 0;
    this.begins = new Map();
    this.ends = new Map();
  }
  chunk(lane) { this.cur = lane; }
  flow(t, kind, key) {
    super.flow(t, kind, key);
    const m = kind === P.KIND.FLOW_BEGIN ? this.begins : kind === P.KIND.FLOW_END ? this.ends : null;
    if (!m) return;
    if (!m.has(this.cur)) m.set(this.cur, new Set());
    if (m.get(this.cur).size < 100000) m.get(this.cur).add(key);
  }
  static async open(port, token) {
    const p = await Peer.open(port, token);
    p.ws.removeAllListeners('message');   /* this peer's sink instead */
    return new FlowPeer(p.ws);
  }
}

main(async () => {
  const gpu = await startFakeGpu();
  const srv = await startServer([String(gpu.pid), '--port', '0']);
  const p = await FlowPeer.open(srv.port, srv.token);
  const byName = () => new Map([...p.lanes.values()].map((l) => [l.name, l]));
  const names = ['host', 'GPU0', 'GPU0 stream 7', 'GPU1', 'GPU1 stream 13'];
  check(await until(() => names.every((n) => byName().has(n)), 30000), 'a lane for the thread and each GPU lane', p.laneNames());
  const L = byName();
  const K = P.LANE_KIND;
  const want = { host: [K.THREAD, 0, 0], GPU0: [K.GPU_DEVICE, 0, 0], 'GPU0 stream 7': [K.GPU_STREAM, 0, 7],
    GPU1: [K.GPU_DEVICE, 1, 0], 'GPU1 stream 13': [K.GPU_STREAM, 1, 13] };
  for (const [n, [kind, device, stream]] of Object.entries(want)) {
    const l = L.get(n);
    check(l.kind === kind && l.device === device && l.stream === stream, `${n}: kind ${kind}, device ${device}, stream ${stream}`, l);
  }
  check(L.get('host').tid === gpu.pid, 'the thread keeps its tid', L.get('host'));
  /* Launch to kernel: a flow id begun on host ends on each stream lane. */
  const host = L.get('host').id, s0 = L.get('GPU0 stream 7').id, s1 = L.get('GPU1 stream 13').id;
  const linked = (lane) => {
    const b = p.begins.get(host), e = p.ends.get(lane);
    return b && e && [...e].some((k) => b.has(k));
  };
  check(await until(() => linked(s0) && linked(s1), 30000), 'launches on host are linked to the work on both streams',
    { begins: (p.begins.get(host) || new Set()).size, ends0: (p.ends.get(s0) || new Set()).size });
  check(p.errors.length === 0, 'every message decodes', p.errors.slice(0, 3));
  p.close();
  check(await stop(srv.proc) === 0, 'recorder-web exits 0 on SIGTERM');
  await stop(gpu);
});
