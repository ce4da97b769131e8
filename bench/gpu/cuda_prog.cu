// cuda_prog.cu -- a plain CUDA C program for bench/gpu/run.sh: 2 streams x
// 50 iterations of 2 kernels, an H2D and a D2H copy, a memset, and a
// stream synchronize, with NVTX ranges.  Prints what it launched, so the
// script checks the recorded counts against it.
#include <cstdio>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

__global__ void scale(float *x, int n, float a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
__global__ void offset(float *x, int n, float b) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += b;
}

int main() {
    const int n = 1 << 20, iters = 50;
    float *h, *d[2];
    cudaStream_t s[2];
    cudaMallocHost(&h, n * sizeof(float));
    for (int k = 0; k < 2; k++) {
        cudaMalloc(&d[k], n * sizeof(float));
        cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking);
    }
    for (int it = 0; it < iters; it++) {
        nvtxRangePushA("iteration");
        for (int k = 0; k < 2; k++) {
            cudaMemcpyAsync(d[k], h, n * sizeof(float), cudaMemcpyHostToDevice, s[k]);
            scale<<<n / 256, 256, 0, s[k]>>>(d[k], n, 2.0f);
            offset<<<n / 256, 256, 0, s[k]>>>(d[k], n, 1.0f);
            cudaMemsetAsync(d[k], 0, 4096, s[k]);
            cudaMemcpyAsync(h, d[k], n * sizeof(float), cudaMemcpyDeviceToHost, s[k]);
        }
        for (int k = 0; k < 2; k++) cudaStreamSynchronize(s[k]);
        nvtxRangePop();
    }
    printf("launched kernels=%d copies=%d memsets=%d\n", iters * 4, iters * 4, iters * 2);
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
