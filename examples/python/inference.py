"""inference.py -- a small multi-threaded transformer inference in numpy,
the Python demo of recorder (the C demo's twin: examples/inference).

A thread pool of decoders serves requests; each request generates tokens
one at a time through an embedding, L transformer blocks (layer norm,
multi-head attention with a KV cache, MLP) and the output projection.
Run it under the runner and every Python call, and the numpy functions
they call, is a scope on its thread's lane:

    PYTHONPATH=build/python python3 -m recorder examples/python/inference.py &
    build/viewer-tui/recorder-top $!                  # live
    PYTHONPATH=build/python python3 -m recorder -o trace.json examples/python/inference.py

It also marks what a profiler cannot guess: a scope per generated token,
the KV cache's length as a counter, a signpost per finished request, its
lane's name, and a flow from where each request is queued to the decoder
that serves it.  Without recorder importable it runs unrecorded.
"""
import argparse
import queue
import threading
import time

import numpy as np

try:
    import recorder
except ImportError:  # runs plainly too
    class _Nothing:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    class recorder:  # noqa: N801 - stands in for the module
        scope = staticmethod(lambda name: _Nothing())
        signpost = counter = staticmethod(lambda *a, **k: None)
        thread_name = flow_begin = flow_end = staticmethod(lambda *a: None)


class Config:
    def __init__(self, d_model=64, n_heads=4, n_layers=4, vocab=256, d_ff=256, max_len=128):
        self.d_model, self.n_heads, self.n_layers = d_model, n_heads, n_layers
        self.vocab, self.d_ff, self.max_len = vocab, d_ff, max_len
        self.d_head = d_model // n_heads


def layer_norm(x, g, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


class Block:
    def __init__(self, cfg, rng):
        d, f = cfg.d_model, cfg.d_ff
        self.cfg = cfg
        self.ln1 = (np.ones(d), np.zeros(d))
        self.ln2 = (np.ones(d), np.zeros(d))
        self.wqkv = rng.standard_normal((d, 3 * d)) / np.sqrt(d)
        self.wo = rng.standard_normal((d, d)) / np.sqrt(d)
        self.w1 = rng.standard_normal((d, f)) / np.sqrt(d)
        self.w2 = rng.standard_normal((f, d)) / np.sqrt(f)

    def attention(self, x, cache):
        cfg = self.cfg
        q, k, v = np.split(x @ self.wqkv, 3)
        cache["k"].append(k.reshape(cfg.n_heads, cfg.d_head))
        cache["v"].append(v.reshape(cfg.n_heads, cfg.d_head))
        keys = np.stack(cache["k"], axis=1)        # heads x t x d_head
        vals = np.stack(cache["v"], axis=1)
        qh = q.reshape(cfg.n_heads, 1, cfg.d_head)
        scores = softmax(qh @ keys.transpose(0, 2, 1) / np.sqrt(cfg.d_head))
        return (scores @ vals).reshape(cfg.d_model) @ self.wo

    def mlp(self, x):
        return gelu(x @ self.w1) @ self.w2

    def forward(self, x, cache):
        x = x + self.attention(layer_norm(x, *self.ln1), cache)
        return x + self.mlp(layer_norm(x, *self.ln2))


class Model:
    def __init__(self, cfg, seed=0):
        rng = np.random.default_rng(seed)
        self.cfg = cfg
        self.embed = rng.standard_normal((cfg.vocab, cfg.d_model)) * 0.02
        self.blocks = [Block(cfg, rng) for _ in range(cfg.n_layers)]
        self.ln_f = (np.ones(cfg.d_model), np.zeros(cfg.d_model))

    def new_cache(self):
        return [{"k": [], "v": []} for _ in self.blocks]

    def step(self, token, caches):
        x = self.embed[token]
        for block, cache in zip(self.blocks, caches):
            x = block.forward(x, cache)
        logits = layer_norm(x, *self.ln_f) @ self.embed.T
        return int(np.argmax(logits))

    def generate(self, prompt, n_tokens):
        caches = self.new_cache()
        out = list(prompt)
        for tok in prompt[:-1]:
            self.step(tok, caches)
        for i in range(n_tokens):
            with recorder.scope("token"):
                out.append(self.step(out[-1], caches))
            recorder.counter("kv_cache_tokens", len(caches[0]["k"]))
        return out


def decoder(model, requests, results, index):
    recorder.thread_name(f"decoder-{index}")
    while True:
        item = requests.get()
        if item is None:
            return
        rid, prompt, n = item
        recorder.flow_end(rid)
        with recorder.scope("request"):
            results[rid] = model.generate(prompt, n)
        recorder.signpost("request done", f"request {rid}: {n} tokens")


def serve(model, n_requests, n_tokens, n_threads, seed):
    rng = np.random.default_rng(seed)
    requests, results = queue.Queue(), {}
    workers = [threading.Thread(target=decoder, args=(model, requests, results, i), name=f"decoder-{i}")
               for i in range(n_threads)]
    for w in workers:
        w.start()
    for rid in range(1, n_requests + 1):
        with recorder.scope("enqueue"):
            recorder.flow_begin(rid)
            prompt = [int(t) for t in rng.integers(0, model.cfg.vocab, size=4)]
            requests.put((rid, prompt, n_tokens))
    for _ in workers:
        requests.put(None)
    for w in workers:
        w.join()
    return results


def main(argv=None):
    ap = argparse.ArgumentParser(description="A small multi-threaded numpy transformer inference.")
    ap.add_argument("--requests", type=int, default=8, help="requests to serve (default 8)")
    ap.add_argument("--tokens", type=int, default=16, help="tokens generated per request (default 16)")
    ap.add_argument("--threads", type=int, default=2, help="decoder threads (default 2)")
    ap.add_argument("--layers", type=int, default=4, help="transformer blocks (default 4)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    if min(a.requests, a.tokens, a.threads, a.layers) < 1:
        ap.error("every count must be at least 1")
    model = Model(Config(n_layers=a.layers), seed=a.seed)
    t0 = time.perf_counter()
    results = serve(model, a.requests, a.tokens, a.threads, a.seed)
    dt = time.perf_counter() - t0
    total = sum(len(r) for r in results.values())
    print(f"served {len(results)} requests, {a.requests * a.tokens} tokens generated "
          f"({total} with prompts) in {dt:.2f} s on {a.threads} threads")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
