"""gpt2_generate.py -- a randomly initialised GPT-2-shaped model's
generate(), timed in tokens/s: the workload of bench/gpu/run.sh.

No download and no transformers package: the model is written here in
plain torch (6 layers, 512 wide, 8 heads, as the fixture's overhead.txt
measured), with a KV cache, greedy decoding, batch 8, 64 new tokens.

  python3 gpt2_generate.py [--rounds N] [--profiler] [--nvtx]
prints one line: "tokens/s <median of the rounds>".
--profiler: inside torch.profiler (CPU + CUDA activities), for comparison.
--nvtx: each layer in a torch.cuda.nvtx range.
"""
import argparse
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x, cache):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.h, d // self.h).transpose(1, 2) for z in (q, k, v))
        if cache is not None:
            k, v = torch.cat([cache[0], k], 2), torch.cat([cache[1], v], 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=cache is None)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.out(F.gelu(self.fc(self.ln2(x)))), (k, v)


class GPT(nn.Module):
    def __init__(self, vocab=50257, d=512, layers=6, heads=8, ctx=1024, nvtx=False):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)
        self.nvtx = nvtx

    def forward(self, idx, pos0, caches):
        pos = torch.arange(pos0, pos0 + idx.shape[1], device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        new = []
        for i, blk in enumerate(self.blocks):
            if self.nvtx:
                torch.cuda.nvtx.range_push(f"layer{i}")
            x, c = blk(x, caches[i] if caches else None)
            if self.nvtx:
                torch.cuda.nvtx.range_pop()
            new.append(c)
        return self.head(self.ln(x[:, -1])), new

    @torch.no_grad()
    def generate(self, idx, n):
        logits, caches = self(idx, 0, None)
        pos = idx.shape[1]
        for _ in range(n):
            nxt = logits.argmax(-1, keepdim=True)
            idx = torch.cat([idx, nxt], 1)
            logits, caches = self(nxt, pos, caches)
            pos += 1
        return idx


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--profiler", action="store_true")
    ap.add_argument("--nvtx", action="store_true")
    ap.add_argument("--tokens", type=int, default=64)
    a = ap.parse_args()
    torch.manual_seed(0)
    dev = "cuda"
    model = GPT(nvtx=a.nvtx).to(dev).eval()
    prompt = torch.randint(0, 50257, (8, 16), device=dev)
    model.generate(prompt, 4)  # warm-up: kernels chosen, memory allocated
    torch.cuda.synchronize()
    rates = []
    ctx = None
    if a.profiler:
        from torch.profiler import ProfilerActivity, profile
        ctx = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
        ctx.__enter__()
    for _ in range(a.rounds):
        t = time.perf_counter()
        model.generate(prompt, a.tokens)
        torch.cuda.synchronize()
        rates.append(8 * a.tokens / (time.perf_counter() - t))
    if ctx is not None:
        ctx.__exit__(None, None, None)
    print(f"tokens/s {statistics.median(rates):.1f}")


if __name__ == "__main__":
    main()
