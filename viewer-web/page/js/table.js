/* table.js -- the top table: one row per scope name, for the selected
 * window, sortable by any column.  Rows are reused, never rebuilt, so the
 * table does not flicker or jump as numbers change.
 *
 * TOTAL% and SELF% are the server's (rec_stat.total_frac), as recorder-top
 * shows them: time inside the scope per unit of time, summed over threads,
 * so 100% is one thread inside it all the time.  When entries were lost
 * in the window, every row is computed from partial data and says so
 * (PARTIAL_MARK), and the shares are over the time the decoded data
 * covers, not the whole window: a thread inside one scope all the time
 * reads close to 100%, not the share of its entries that was read.
 * (PARTIAL_MARK and fmtShare are format.js's.) */

const TOP_COLUMNS = [
  { k: 'name', fmt: null },
  { k: 'calls', fmt: fmtCount },
  { k: 'rate', fmt: fmtRate },
  { k: 'totalFrac', fmt: fmtShare, bar: true },
  { k: 'selfFrac', fmt: fmtShare },
  { k: 'avg', fmt: fmtDur },
  { k: 'p50', fmt: fmtDur },
  { k: 'p95', fmt: fmtDur },
  { k: 'p99', fmt: fmtDur },
  { k: 'max', fmt: fmtDur },
];

class TopTable {
  constructor(table, body, sub, store, colors) {
    this.body = body;
    this.sub = sub;
    this.store = store;
    this.colors = colors;
    this.sortKey = 'totalFrac';
    this.rows = [];
    this.stats = null;
    this.shown = [];          /* the rows last shown (tests read them) */
    this.filter = null;       /* label -> boolean: the search (search.js) */
    this.picked = null;       /* the label of the row picked (its slices highlighted) */
    this.onPick = () => {};
    body.addEventListener('click', (e) => {
      const tr = e.target.closest('tr');
      if (tr && tr.row_) this.onPick(tr.row_);
    });
    table.querySelector('thead').addEventListener('click', (e) => {
      const th = e.target.closest('th');
      if (!th) return;
      this.sortKey = th.dataset.k;
      for (const h of table.querySelectorAll('th')) h.classList.toggle('sorted', h === th);
      this.render();
    });
  }

  set(stats) {
    this.stats = stats;
    this.render();
  }

  row(i) {
    while (this.rows.length <= i) {
      const tr = document.createElement('tr');
      const cells = TOP_COLUMNS.map((c, j) => {
        const td = document.createElement('td');
        if (j === 0) {
          td.className = 'l';
          const pm = document.createElement('span');
          pm.className = 'pmark';
          const sw = document.createElement('span');
          sw.className = 'sw';
          const tx = document.createElement('span');
          td.append(pm, sw, tx);
          td.pm = pm;
          td.sw = sw;
          td.tx = tx;
        } else if (c.bar) {
          td.className = 'bar';
        }
        tr.append(td);
        return td;
      });
      tr.cells_ = cells;
      this.body.append(tr);
      this.rows.push(tr);
    }
    return this.rows[i];
  }

  /* The rows as shown: with layer numbers folded, the rows of one folded
   * name become one, their counts and times added (time inside two of
   * them at once, one nested in the other, counts twice).  Percentiles
   * cannot be added: a folded row of several names has none. */
  rowsOf(st) {
    const s = this.store;
    const rows = st.rows.map((r) => ({ ...r, label: s.label(r.name), folded: 1 }))
      .filter((r) => !this.filter || this.filter(r.label));
    if (!nameFold.on) return rows;
    const by = new Map();
    for (const r of rows) {
      const g = by.get(r.label);
      if (!g) { by.set(r.label, r); continue; }
      g.folded++;
      for (const k of ['calls', 'rate', 'total', 'self', 'totalFrac', 'selfFrac']) g[k] += r[k];
      g.min = Math.min(g.min, r.min);
      g.max = Math.max(g.max, r.max);
      g.avg = g.calls > 0 ? g.total / g.calls : 0;
      g.p50 = g.p95 = g.p99 = NaN;
    }
    return [...by.values()];
  }

  /* The names, cut to the column by what the rows shown share
   * (elide.js); the full name is the cell's title. */
  showNames(rows) {
    const td = rows.length ? this.rows[0].cells_[0] : null;
    let room = Infinity;
    if (td && td.clientWidth > 0) {
      const cs = getComputedStyle(td), sw = getComputedStyle(td.sw);
      room = td.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) -
        td.sw.offsetWidth - parseFloat(sw.marginRight) - 1;
      const font = getComputedStyle(td.tx).font;
      if (!this.measure || this.measure.font !== font) this.measure = textMeasure(font);
    }
    const labels = rows.map((r) => r.label), key = room + '\n' + labels.join('\n');
    if (key !== this.namesKey) {
      this.namesKey = key;
      this.names = Number.isFinite(room) ? elideNames(labels, room, this.measure) : labels;
    }
    for (let i = 0; i < rows.length; i++) {
      const tx = this.rows[i].cells_[0].tx;
      if (tx.textContent !== this.names[i]) tx.textContent = this.names[i];
    }
  }

  render() {
    const st = this.stats;
    if (!st) return;
    const rows = this.rowsOf(st);
    this.shown = rows;
    const k = this.sortKey;
    if (k === 'name') rows.sort((a, b) => a.label.localeCompare(b.label));
    else rows.sort((a, b) => (b[k] || 0) - (a[k] || 0));   /* a folded row has no percentiles (NaN) */
    const partial = st.cover.partial, mark = partial ? PARTIAL_MARK : '';
    const maxTotal = rows.reduce((m, r) => Math.max(m, r.totalFrac), 0) || 1;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i], tr = this.row(i), cells = tr.cells_;
      setHidden(tr, false);
      tr.row_ = r;
      tr.classList.toggle('picked', r.label === this.picked);
      tr.classList.toggle('partial', partial);
      setText(cells[0].pm, mark);
      setStyle(cells[0].sw, 'background', this.colors.of(r.name));
      setTitle(cells[0], r.label + (r.folded > 1 ? ` (${r.folded} names folded into one; no percentiles)` : '') +
        (partial ? ' (partial: entries were lost in this window)' : ''));
      /* The time itself, of the calls decoded, on the share's cell. */
      setTitle(cells[3], `${fmtDur(r.total)} inside it, ${fmtDur(r.self)} in its own code, in the calls decoded` +
        (partial ? '; the share is of the time the decoded data covers' : ''));
      for (let j = 1; j < TOP_COLUMNS.length; j++) {
        const c = TOP_COLUMNS[j];
        const text = (r.calls === 0 && j > 2) || Number.isNaN(r[c.k]) ? '—' : c.fmt(r[c.k]);
        setText(cells[j], text);
        if (c.bar) {
          const pct = Math.max(0, Math.min(100, (100 * r.totalFrac) / maxTotal));
          /* A thin bar under the number: share of the largest total. */
          setStyle(cells[j], 'backgroundImage', 'linear-gradient(#5c8fd6, #5c8fd6)');
          setStyle(cells[j], 'backgroundSize', `calc((100% - 12px) * ${(pct / 100).toFixed(3)}) 2px`);
        }
      }
    }
    for (let i = rows.length; i < this.rows.length; i++) setHidden(this.rows[i], true);
    this.showNames(rows);
    const win = st.range ? 'selected range' : ['last second', 'last 10 s', 'whole run'][st.window] || '';
    const text = `${rows.length} of ${st.total} scopes${nameFold.on ? ' (folded)' : ''}${this.filter ? ' (search)' : ''} · ${win}` + (st.span > 0 ? ` (${fmtDur(st.span)})` : '');
    setTitle(this.sub, 'total%: time inside the scope per unit of time, summed over threads (100% = one thread inside ' +
      'it all the time)' + (partial ? '. Entries were lost in this window: every figure is computed from the part ' +
      'decoded; calls and calls/s count what was decoded, and total% and self% are of the time the decoded data ' +
      'covers (each thread\'s window minus the stretches where its entries were lost), not of the whole window' : ''));
    /* When partial, what the mark means comes first. */
    const subKey = (partial ? (st.range ? 'r' + coverText(st.cover) : 'p') : '') + '\n' + text;
    if (subKey === this.subKey) return;
    this.subKey = subKey;
    this.sub.replaceChildren();
    if (partial) {
      const pm = document.createElement('span');
      pm.className = 'pmark';
      pm.textContent = PARTIAL_MARK;
      this.sub.append(pm, st.range ? ' partial: ' + coverText(st.cover) + ' · ' : ' partial (entries lost): % of the decoded time · ');
    }
    this.sub.append(text);
  }
}
