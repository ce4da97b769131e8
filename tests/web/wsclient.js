/* wsclient.js -- a small WebSocket client for the protocol tests.
 *
 * Node 20 has no WebSocket client we can give arbitrary headers (Origin),
 * so this one speaks RFC 6455 over a plain socket: it sends exactly the
 * handshake headers a test asks for, can send malformed frames on
 * purpose, and reports the server's close code. */
'use strict';
const net = require('net');
const crypto = require('crypto');
const { EventEmitter } = require('events');
const path = require('path');
/* The page's own sub-protocol name (one definition, with its version). */
const { SUBPROTOCOL } = require(path.join(__dirname, '../../viewer-web/page/js/protocol.js'));

class WsClient extends EventEmitter {
  constructor(sock) {
    super();
    this.sock = sock;
    this.buf = Buffer.alloc(0);
    this.frag = [];
    this.parts = [];          /* the reads of a frame not yet whole, and their length */
    this.have = 0;
    this.need = 0;            /* that frame's length with its header, 0 when none */
    this.closed = null;       /* {code, reason} once closed */
    this.messages = 0;
    this.paused = false;
  }

  feed(chunk) {
    /* A frame larger than a read (recorder-web's frames reach 256 KiB):
     * its parts are kept apart and joined once, when all of it is here,
     * not joined again at every read. */
    if (this.need > 0) {
      this.parts.push(chunk);
      this.have += chunk.length;
      if (this.have < this.need) return;
      chunk = Buffer.concat(this.parts);
      this.parts = [];
      this.need = this.have = 0;
    }
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    for (;;) {
      if (this.buf.length < 2) return;
      const b0 = this.buf[0], b1 = this.buf[1];
      let len = b1 & 127, off = 2;
      if (len === 126) {
        if (this.buf.length < 4) return;
        len = this.buf.readUInt16BE(2);
        off = 4;
      } else if (len === 127) {
        if (this.buf.length < 10) return;
        len = Number(this.buf.readBigUInt64BE(2));
        off = 10;
      }
      if (b1 & 128) off += 4;   /* servers must not mask, but skip it if they do */
      if (this.buf.length < off + len) {
        this.need = off + len;
        this.parts = [this.buf];
        this.have = this.buf.length;
        this.buf = Buffer.alloc(0);
        return;
      }
      const payload = this.buf.subarray(off, off + len);
      this.buf = this.buf.subarray(off + len);
      const fin = (b0 & 128) !== 0, op = b0 & 15;
      if (op === 8) {
        const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
        this.closed = { code, reason: payload.subarray(2).toString() };
        this.sock.end();
        this.emit('close', this.closed);
        return;
      }
      if (op === 9) { this.sendFrame(10, payload); continue; }
      if (op === 10) continue;
      this.frag.push(Buffer.from(payload));
      if (fin) {
        const msg = this.frag.length === 1 ? this.frag[0] : Buffer.concat(this.frag);
        this.frag = [];
        this.messages++;
        this.emit('message', msg);
      }
    }
  }

  /* A masked frame, as a client must send. */
  sendFrame(op, payload, { fin = true, mask = true } = {}) {
    const data = Buffer.from(payload);
    const head = [];
    head.push((fin ? 128 : 0) | op);
    const m = mask ? 128 : 0;
    if (data.length < 126) head.push(m | data.length);
    else if (data.length < 65536) head.push(m | 126, data.length >> 8, data.length & 255);
    else {
      head.push(m | 127);
      const l = Buffer.alloc(8);
      l.writeBigUInt64BE(BigInt(data.length));
      head.push(...l);
    }
    let body = data;
    if (mask) {
      const key = crypto.randomBytes(4);
      head.push(...key);
      body = Buffer.from(data.map((b, i) => b ^ key[i & 3]));
    }
    this.sock.write(Buffer.concat([Buffer.from(head), body]));
  }
  send(bytes) { this.sendFrame(2, bytes); }
  sendText(s) { this.sendFrame(1, Buffer.from(s)); }
  close() { try { this.sendFrame(8, Buffer.from([3, 232])); } catch (e) { /* already gone */ } this.sock.end(); }
  /* Stop reading from the socket (the kernel buffers fill, then the server's queue). */
  pause() { this.paused = true; this.sock.pause(); }
  resume() { this.paused = false; this.sock.resume(); }

  waitClose(ms = 10000) {
    if (this.closed) return Promise.resolve(this.closed);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('no close within ' + ms + ' ms')), ms);
      this.once('close', (c) => { clearTimeout(t); resolve(c); });
    });
  }
}

/* Opens a WebSocket; resolves {status, headers, ws} where ws is null
 * unless the server switched protocols (101). */
function connect({ port, path, origin, host, protocol = SUBPROTOCOL, headers = {} }) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    const key = crypto.randomBytes(16).toString('base64');
    let head = Buffer.alloc(0), done = false;
    sock.on('error', (e) => { if (!done) { done = true; reject(e); } });
    sock.on('connect', () => {
      const lines = [
        `GET ${path} HTTP/1.1`,
        `Host: ${host || '127.0.0.1:' + port}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        `Sec-WebSocket-Key: ${key}`,
        'Sec-WebSocket-Version: 13',
      ];
      if (protocol) lines.push(`Sec-WebSocket-Protocol: ${protocol}`);
      if (origin) lines.push(`Origin: ${origin}`);
      for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
      sock.write(lines.join('\r\n') + '\r\n\r\n');
    });
    const onData = (chunk) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      sock.removeListener('data', onData);
      done = true;
      const text = head.subarray(0, end).toString();
      const status = Number(text.split(' ')[1]);
      const rest = head.subarray(end + 4);
      if (status !== 101) {
        sock.destroy();
        resolve({ status, headers: text, ws: null });
        return;
      }
      const ws = new WsClient(sock);
      sock.on('close', () => {
        if (!ws.closed) { ws.closed = { code: 1006, reason: 'connection dropped' }; ws.emit('close', ws.closed); }
      });
      /* Hold the stream until the caller has its listeners: what came
       * with the handshake goes first, then the rest in order. */
      sock.pause();
      resolve({ status, headers: text, ws });
      setImmediate(() => {
        if (rest.length) ws.feed(rest);
        sock.on('data', (c) => ws.feed(c));
        if (!ws.paused) sock.resume();
      });
    };
    sock.on('data', onData);
    sock.on('close', () => {
      if (!done) { done = true; resolve({ status: 0, headers: '', ws: null }); }
    });
  });
}

module.exports = { connect, WsClient };
