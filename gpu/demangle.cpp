/*
 * demangle.cpp -- kernel names as a person reads them: CUPTI gives the
 * mangled C++ name ("_Z6squarePfi"); the lanes show "square(float*, int)".
 * The one C++ file of the conversion: abi::__cxa_demangle behind a C
 * function.  A name that is not a mangled C++ name (an extern "C" kernel,
 * cuBLAS's "sm80_xmma_gemm_...") is shown as it is.
 */
#include <cxxabi.h>
#include <cstdlib>
#include <cstring>

extern "C" void gpu_demangle(const char *mangled, char *out, size_t cap);

extern "C" void gpu_demangle(const char *mangled, char *out, size_t cap) {
    if (!cap) return;
    const char *show = mangled ? mangled : "";
    char *d = nullptr;
    if (mangled && mangled[0] == '_' && mangled[1] == 'Z') {
        int status = 0;
        d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
        if (status == 0 && d) show = d;
    }
    size_t n = strnlen(show, cap - 1);
    memcpy(out, show, n);
    out[n] = 0;
    free(d);
}
