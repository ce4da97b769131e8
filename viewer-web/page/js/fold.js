/* fold.js -- "fold layer numbers" (docs/web.md, "Folding layer numbers"):
 * a model's layers repeat the same scopes under names that differ only in
 * the layer's number (ffn_up-0 ... ffn_up-31, blk.3.attn_q); folded, they
 * read as one name (ffn_up-*, blk.*.attn_q) and the top table and the
 * flame graph add them up.  recorder-top folds with the same rule.
 *
 * The rule: every maximal run of decimal digits that follows '-', '.' or
 * '_' and is followed by the end of the name, '-', '.', '_' or a space
 * becomes '*' (the space: llama.cpp's "Qcur-6 (view) (permuted)").  Digits inside a word (fp16, q4k, layer7) stay. */

/* The lookbehind makes the run start right after a separator, so it is
 * maximal on the left; the lookahead wants a non-digit, so backtracking
 * cannot end the run early. */
const FOLD_RUN = /(?<=[-._])[0-9]+(?=$|[-._ ])/g;

function foldLayerNumbers(name) {
  return name.replace(FOLD_RUN, '*');
}

/* The page's switch, and a cache (names are few, labels drawn often). */
const nameFold = {
  on: false,
  cache: new Map(),
  label(name) {
    if (!this.on) return name;
    let f = this.cache.get(name);
    if (f === undefined) {
      f = foldLayerNumbers(name);
      if (this.cache.size > 65536) this.cache.clear();
      this.cache.set(name, f);
    }
    return f;
  },
};
