/* flame.js -- the flame graph of the call-path tree the server computes
 * for the selected window: the root spans the width, each frame sits
 * under its caller, wide as its total time.  Click a frame to zoom into
 * it; click the root or a breadcrumb to zoom back out.
 *
 * A frame's shares of the window are the server's (weighed as its name's
 * TOTAL% and SELF%, as recorder-top's Flame view does); when entries were
 * lost in the window the heading and every share say partial. */

const FLAME_ROW = 20;

class Flame {
  constructor(canvas, crumbs, sub, store, colors, tooltip) {
    this.canvas = canvas;
    this.sub = sub;
    this.partial = false;
    this.ctx = canvas.getContext('2d', { alpha: false });
    this.crumbs = crumbs;
    this.store = store;
    this.colors = colors;
    this.tip = tooltip;
    this.nodes = [];
    this.focusPath = [];      /* names from the root to the focused frame */
    this.boxes = [];
    this.mouse = null;
    this.dirty = true;
    this.W = 0; this.H = 0; this.dpr = 1;
    this.bind();
  }

  /* New tree from a STATS message (or a range's: what says so), and
   * whether it is partial. */
  setTree(nodes, cover, what) {
    const partial = !!(cover && cover.partial);
    this.partial = partial;
    const text = (partial ? PARTIAL_MARK + ' partial (entries lost) · ' : '') + (what ? what + ' · ' : '') + 'click a frame to zoom';
    if (text !== this.sub.textContent) {
      this.sub.textContent = text;
      this.sub.classList.toggle('partial', partial);
    }
    this.raw = nodes;
    this.rawCover = cover;
    this.rawWhat = what;
    let out = nodes.map((n, i) => ({ ...n, i, kids: [], depth: 0 }));
    for (let i = 1; i < out.length; i++) {
      const p = out[out[i].parent < out.length ? out[i].parent : 0];
      if (p !== out[i]) p.kids.push(out[i]);
    }
    if (nameFold.on && out.length) out = this.fold(out[0]);
    for (const o of out) o.kids.sort((a, b) => b.total - a.total);
    /* The root's total is its children's: the time covered by scopes. */
    if (out.length) out[0].total = out[0].kids.reduce((a, c) => a + c.total, 0);
    this.nodes = out;
    this.dirty = true;
  }

  /* Layer numbers folded: the children of a frame with one folded name
   * become one frame (counts and times added, their children pooled),
   * and so on down; the nodes are numbered again, parents first. */
  fold(root) {
    const out = [];
    const todo = [[root, 0]];
    while (todo.length) {
      const [n, parent] = todo.pop();
      n.i = out.length;
      n.parent = parent;
      out.push(n);
      const by = new Map();
      for (const k of n.kids) {
        const key = this.store.label(k.name), g = by.get(key);
        if (!g) { by.set(key, { ...k, kids: [...k.kids] }); continue; }
        for (const f of ['calls', 'total', 'self', 'totalFrac', 'selfFrac']) g[f] += k[f];
        g.kids.push(...k.kids);
      }
      n.kids = [...by.values()];
      for (const k of n.kids) todo.push([k, n.i]);
    }
    return out;
  }

  /* Folding on or off: the same tree again. */
  refold() {
    if (this.raw) this.setTree(this.raw, this.rawCover, this.rawWhat);
  }

  focusNode() {
    let node = this.nodes[0];
    if (!node) return null;
    for (const name of this.focusPath) {
      const want = this.store.label(name);   /* a folded frame is any of its names */
      const next = node.kids.find((k) => this.store.label(k.name) === want);
      if (!next) break;
      node = next;
    }
    return node;
  }

  resize() {
    if (sizeCanvas(this)) this.dirty = true;
  }

  draw() {
    this.resize();
    const ctx = this.ctx;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.fillStyle = UI.laneA;
    ctx.fillRect(0, 0, this.W, this.H);
    this.boxes = [];
    const focus = this.focusNode();
    this.renderCrumbs(focus);
    if (!focus || !(focus.total > 0)) {
      canvasNote(ctx, this.W, this.H, 'No completed scopes in this window yet');
      this.dirty = false;
      return;
    }
    const pad = 8, W = this.W - 2 * pad;
    /* Ancestors of the focus first, full width, then its subtree. */
    const chain = [];
    for (let n = focus, g = 0; n && n.i !== 0 && g < 512; n = this.nodes[n.parent], g++) chain.unshift(n);
    let y = pad;
    this.box(this.nodes[0], pad, y, W, 0);
    for (const a of chain.slice(0, -1)) { y += FLAME_ROW; this.box(a, pad, y, W, 1); }
    if (focus !== this.nodes[0]) y += FLAME_ROW;
    const scale = W / focus.total;
    const walk = (node, x, yy) => {
      if (yy > this.H) return;
      let cx = x;
      for (const k of node.kids) {
        const w = k.total * scale;
        if (w >= 0.5) {
          this.box(k, cx, yy + FLAME_ROW, w, 0);
          walk(k, cx, yy + FLAME_ROW);
        }
        cx += w;
      }
    };
    if (focus !== this.nodes[0]) this.box(focus, pad, y, W, 0);
    walk(focus, pad, y);
    this.drawHover();
    this.dirty = false;
  }

  box(node, x, y, w, dim) {
    const ctx = this.ctx;
    const root = node.i === 0;
    ctx.fillStyle = root ? '#2a3140' : this.colors.of(node.name);
    ctx.globalAlpha = dim ? 0.45 : 1;
    ctx.fillRect(x, y, Math.max(0.5, w - 1), FLAME_ROW - 2);
    ctx.globalAlpha = 1;
    if (w > 30) {
      const label = root ? 'all scopes' : this.store.label(node.name);
      const text = this.fitText(label, w - 8);
      if (text) {
        ctx.font = FONT;
        ctx.fillStyle = root ? UI.text : UI.label;
        ctx.textAlign = 'left';
        ctx.textBaseline = 'middle';
        ctx.fillText(text, x + 4, y + (FLAME_ROW - 2) / 2 + 0.5);
      }
    }
    this.boxes.push({ node, x, y, w });
  }

  fitText(text, w) {
    this.ctx.font = FONT;
    const tw = this.ctx.measureText(text).width;
    if (tw <= w) return text;
    const n = Math.floor((text.length * w) / tw) - 1;
    return n >= 2 ? text.slice(0, n) + '…' : '';
  }

  renderCrumbs(focus) {
    const key = this.focusPath.join('\u0000') + '|' + (focus ? focus.i : -1) + (nameFold.on ? '|folded' : '');
    if (key === this.crumbKey) return;
    this.crumbKey = key;
    this.crumbs.replaceChildren();
    const add = (text, depth) => {
      const s = document.createElement('span');
      s.textContent = text;
      s.addEventListener('click', () => { this.focusPath = this.focusPath.slice(0, depth); this.dirty = true; });
      if (this.crumbs.childNodes.length) this.crumbs.append(' › ');
      this.crumbs.append(s);
    };
    add('all', 0);
    this.focusPath.forEach((name, i) => add(this.store.label(name), i + 1));
  }

  at(x, y) {
    for (let i = this.boxes.length - 1; i >= 0; i--) {
      const b = this.boxes[i];
      if (x >= b.x && x < b.x + b.w && y >= b.y && y < b.y + FLAME_ROW - 2) return b;
    }
    return null;
  }

  drawHover() {
    if (!this.mouse) return;
    const b = this.at(this.mouse.x, this.mouse.y);
    this.hovered = b;
    if (!b) return;
    this.ctx.strokeStyle = UI.hover;
    this.ctx.lineWidth = 1.5;
    this.ctx.strokeRect(b.x + 0.5, b.y + 0.5, Math.max(1, b.w - 2), FLAME_ROW - 3);
  }

  pathOf(node) {
    const path = [];
    for (let n = node, g = 0; n && n.i !== 0 && g < 512; n = this.nodes[n.parent], g++) path.unshift(n.name);
    return path;
  }

  bind() {
    const c = this.canvas;
    c.addEventListener('mousemove', (e) => {
      const r = c.getBoundingClientRect();
      this.mouse = { x: e.clientX - r.left, y: e.clientY - r.top };
      this.dirty = true;
      this.draw();
      this.showTooltip(e.clientX, e.clientY);
    });
    c.addEventListener('mouseleave', () => { this.mouse = null; this.hovered = null; this.tip.hidden = true; this.dirty = true; });
    c.addEventListener('click', () => {
      const b = this.hovered;
      if (!b) return;
      this.focusPath = b.node.i === 0 ? [] : this.pathOf(b.node);
      this.dirty = true;
    });
  }

  showTooltip(cx, cy) {
    const b = this.hovered, tip = this.tip;
    if (!b) { tip.hidden = true; return; }
    const n = b.node, root = this.nodes[0], mark = this.partial ? PARTIAL_MARK : '';
    /* Shares of the window (of the time the decoded data covers when
     * partial), as the top table's total% and self%. */
    const rows = [['total', fmtDur(n.total) + '  (' + mark + fmtShare(n.totalFrac) + ')']];
    if (n.i !== 0) {
      rows.push(['self', fmtDur(n.self) + '  (' + mark + fmtShare(n.selfFrac) + ')']);
      rows.push(['calls', fmtCount(n.calls)]);
      if (n.calls) rows.push(['avg', fmtDur(n.total / n.calls)]);
      if (root.total > 0) rows.push(['of the graph', ((100 * n.total) / root.total).toFixed(1) + '%']);
      rows.push(['path', this.pathOf(n).map((x) => this.store.label(x)).join(' › ')]);
    }
    tip.replaceChildren();
    const t = document.createElement('div');
    t.className = 't-name';
    t.textContent = n.i === 0 ? 'all scopes' : this.store.label(n.name);
    const g = document.createElement('div');
    g.className = 't-grid';
    for (const [k, v] of rows) {
      const a = document.createElement('div'), bb = document.createElement('div');
      a.className = 't-k'; a.textContent = k;
      bb.className = 't-v'; bb.textContent = v;
      g.append(a, bb);
    }
    tip.append(t, g);
    if (this.partial) {
      const note = document.createElement('div');
      note.className = 't-note';
      note.textContent = 'partial: entries were lost in this window; % are of the time the decoded data covers';
      tip.append(note);
    }
    tip.hidden = false;
    const r = tip.getBoundingClientRect();
    let x = cx + 14, y = cy + 16;
    if (x + r.width > window.innerWidth - 8) x = cx - r.width - 14;
    if (y + r.height > window.innerHeight - 8) y = cy - r.height - 12;
    tip.style.left = Math.max(4, x) + 'px';
    tip.style.top = Math.max(4, y) + 'px';
  }
}
