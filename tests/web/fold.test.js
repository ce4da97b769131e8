/* fold.test.js -- the page's "fold layer numbers" rule (fold.js, docs/web.md
 * "Folding layer numbers"), without a browser: every maximal run of decimal
 * digits after '-', '.' or '_' and before the end, '-', '.' or '_' is '*'. */
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const { check, main } = require('./harness');

main(async () => {
  const src = fs.readFileSync(path.join(__dirname, '../../viewer-web/page/js/fold.js'), 'utf8');
  const sandbox = {};
  vm.runInNewContext(src + '\nthis.fold = foldLayerNumbers; this.nameFold = nameFold;', sandbox);
  const cases = [
    ['ffn_up-0', 'ffn_up-*'], ['ffn_up-7', 'ffn_up-*'], ['ffn_up-31', 'ffn_up-*'],
    ['blk.3.attn_q', 'blk.*.attn_q'], ['blk.12.ffn-3', 'blk.*.ffn-*'], ['x-0', 'x-*'], ['x_1', 'x_*'],
    ['a.1.2.3', 'a.*.*.*'], ['layer_10_', 'layer_*_'], ['-5', '-*'], ['.5.', '.*.'],
    /* not folded: digits inside a word, at the start, or before a letter */
    ['layer7', 'layer7'], ['fp16', 'fp16'], ['q4_k', 'q4_k'], ['x-1a', 'x-1a'], ['12-x', '12-x'],
    ['x-1b-2', 'x-1b-*'], ['Qcur-6 (view) (permuted)', 'Qcur-* (view) (permuted)'], ['x-1\t', 'x-1\t'], ['x-1/2', 'x-1/2'], ['x-１', 'x-１'], ['matmul', 'matmul'], ['', ''],
  ];
  for (const [input, want] of cases) {
    const got = sandbox.fold(input);
    check(got === want, `fold(${JSON.stringify(input)}) = ${JSON.stringify(want)}`, got);
  }
  /* Twice the same: a regular expression with /g keeps state between calls. */
  check(sandbox.fold('x-0') === 'x-*' && sandbox.fold('x-0') === 'x-*', 'folding is the same every time');
  const f = sandbox.nameFold;
  check(f.label('x-0') === 'x-0', 'the switch is off by default');
  f.on = true;
  check(f.label('x-0') === 'x-*' && f.label('x-0') === 'x-*', 'on, labels fold');
});
