/* raster.js -- a pixel buffer the timeline paints its blocks into, put on
 * the canvas in one call.
 *
 * Without a GPU, every fillRect on a 2D canvas costs a couple of
 * microseconds, and a zoomed-out timeline is thousands of one-pixel
 * blocks; writing those pixels into a Uint32Array and calling
 * putImageData once costs a fraction of that.  Text, arrows and outlines
 * are drawn on the canvas afterwards, where they are few.
 *
 * Coordinates are CSS pixels (floats); the raster scales by the device
 * pixel ratio.  Colors are packed 0xAABBGGRR (little-endian RGBA). */

function packRGB(r, g, b) { return (0xff000000 | (b << 16) | (g << 8) | r) >>> 0; }

function packHex(hex) {
  const v = parseInt(hex.slice(1), 16);
  return packRGB((v >> 16) & 255, (v >> 8) & 255, v & 255);
}

function packHSL(h, s, l) {
  s /= 100; l /= 100;
  const k = (n) => (n + h / 30) % 12, a = s * Math.min(l, 1 - l);
  const f = (n) => Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))));
  return packRGB(f(0), f(8), f(4));
}

/* a over b, by weight w of a. */
function mixPacked(a, b, w) {
  const ch = (c, sh) => (c >>> sh) & 255;
  const m = (sh) => Math.round(ch(a, sh) * w + ch(b, sh) * (1 - w));
  return packRGB(m(0), m(8), m(16));
}

class Raster {
  constructor(ctx) {
    this.ctx = ctx;
    this.w = 0; this.h = 0; this.dpr = 1;
    this.clipTop = 0; this.clipBottom = 0;
  }
  resize(wCss, hCss, dpr) {
    const w = Math.round(wCss * dpr), h = Math.round(hCss * dpr);
    if (w === this.w && h === this.h && this.img) return;
    this.w = w; this.h = h; this.dpr = dpr;
    this.img = this.ctx.createImageData(w, h);
    this.buf = new Uint32Array(this.img.data.buffer);
    this.clipTop = 0; this.clipBottom = h;
  }
  /* Rows [top, bottom) in CSS pixels may be painted; the rest is left. */
  clip(topCss, bottomCss) {
    this.clipTop = Math.max(0, Math.round(topCss * this.dpr));
    this.clipBottom = Math.min(this.h, Math.round(bottomCss * this.dpr));
  }
  unclip() { this.clipTop = 0; this.clipBottom = this.h; }
  clear(c) { this.buf.fill(c); }
  /* [x0, x1) × [y0, y1), at least one device pixel wide. */
  rect(x0, y0, x1, y1, c) {
    const d = this.dpr, w = this.w, buf = this.buf;
    let X0 = Math.round(x0 * d), X1 = Math.round(x1 * d);
    if (X1 <= X0) X1 = X0 + 1;
    let Y0 = Math.round(y0 * d), Y1 = Math.round(y1 * d);
    if (X0 < 0) X0 = 0;
    if (X1 > w) X1 = w;
    if (Y0 < this.clipTop) Y0 = this.clipTop;
    if (Y1 > this.clipBottom) Y1 = this.clipBottom;
    if (X0 >= X1 || Y0 >= Y1) return;
    if (X1 - X0 <= 4) {
      for (let y = Y0; y < Y1; y++) {
        const o = y * w;
        for (let x = X0; x < X1; x++) buf[o + x] = c;
      }
    } else {
      for (let y = Y0; y < Y1; y++) buf.fill(c, y * w + X0, y * w + X1);
    }
  }
  put() { this.ctx.putImageData(this.img, 0, 0); }
}
