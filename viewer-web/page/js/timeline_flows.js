/* timeline_flows.js -- the timeline's flows and GPU groups: an arrow from
 * each flow's point to the next one's (a CUDA launch on its CPU thread to
 * the kernel it launched, on a GPU stream lane), a GPU device's header row
 * above its lanes, and what each lane's gutter says it records (THREADS'
 * kind, protocol 6).  Methods of Timeline (mixInto). */

/* A lane's second gutter line: what it records. */
function laneSub(L) {
  switch (L.kind) {
    case LANE_KIND.GPU_STREAM: return 'GPU ' + L.device + ' · stream ' + L.stream;
    case LANE_KIND.GPU_DEVICE: return 'GPU ' + L.device + ' · device';
    case LANE_KIND.RANGES: return 'ranges';
    default: return L.tid ? 'tid ' + L.tid : '';
  }
}

class TimelineFlows {
  /* A GPU device's header: its name and streams, on one line. */
  groupText(y, tr) {
    const ctx = this.ctx;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    ctx.font = FONT_BOLD;
    ctx.fillStyle = UI.text;
    const title = this.fit(tr.title, GUTTER - 24, FONT_BOLD);
    ctx.fillText(title, 6, y + GROUP_H / 2);
    ctx.font = FONT_MONO;
    ctx.fillStyle = UI.faint;
    const w = ctx.measureText(title).width + 14;
    ctx.fillText(this.fit(tr.sub, GUTTER - 12 - w, FONT_MONO), 6 + w, y + GROUP_H / 2);
  }

  flowY(tr, depth, top) {
    const d = Math.min(depth, tr.rows);
    return top + tr.rowsY + (d > 0 ? (d - 1) * ROW_H + (ROW_H - 2) / 2 : -INSTANT_H / 2);
  }

  drawFlows(top) {
    const ctx = this.ctx, t0 = this.t0, t1 = this.t1;
    const lookBack = this.span;   /* arrows whose start is off the left edge */
    const lines = new Path2D(), heads = new Path2D();
    let drawn = 0;
    for (const tr of this.tracks) {
      if (tr.kind !== 'lane') continue;
      const F = tr.L.flows;
      let lastX = -1e9;
      for (let i = F.lowerBound(0, t0); i < F.n && F.t[i] <= t1 + lookBack && drawn < 4000; i++) {
        if (F.pLane[i] < 0 || F.pT[i] > t1 || F.pT[i] < t0 - lookBack) continue;
        const x2 = this.xOf(F.t[i]);
        if (x2 - lastX < 4) continue;   /* one arrow every few pixels is plenty */
        lastX = x2;
        const from = this.laneTrack(F.pLane[i]);
        if (!from) continue;
        const x1 = this.xOf(F.pT[i]), y1 = this.flowY(from, F.pDepth[i], top);
        const y2 = this.flowY(tr, F.depth[i], top);
        const dx = Math.max(12, Math.abs(x2 - x1) * 0.4);
        lines.moveTo(x1, y1);
        lines.bezierCurveTo(x1 + dx, y1, x2 - dx, y2, x2, y2);
        heads.moveTo(x2, y2);
        heads.lineTo(x2 - 7, y2 - 3.5);
        heads.lineTo(x2 - 7, y2 + 3.5);
        heads.closePath();
        drawn++;
      }
    }
    this.flowsDrawn = drawn;   /* for the tests (timeline_probe.js) */
    if (!drawn) return;
    /* Many arrows at once are texture, not information: draw them faint. */
    ctx.globalAlpha = drawn > 120 ? 0.22 : 0.8;
    ctx.strokeStyle = UI.flow;
    ctx.fillStyle = UI.flow;
    ctx.lineWidth = 1.2;
    ctx.stroke(lines);
    ctx.fill(heads);
    ctx.globalAlpha = 1;
  }
}

mixInto(Timeline, TimelineFlows);
