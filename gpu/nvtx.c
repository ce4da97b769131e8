/*
 * nvtx.c -- librecorder-cuda.so as the NVTX tool library: a program run
 * with NVTX_INJECTION64_PATH naming this library (recorder run --cuda sets
 * it) has its NVTX calls recorded into its segment, with no GPU and no
 * CUDA needed (docs/gpu.md, "NVTX").
 *
 * NVTX (header-only, compiled into the program or into PyTorch, NCCL...)
 * loads us at its first call and calls InitializeInjectionNvtx2, which
 * fills the slots of NVTX's core modules (CORE, CORE2) with the functions
 * below; the slots left empty stay no-ops.  What each becomes:
 *   - push/pop ranges: a scope on the calling thread (a name made at run
 *     time, REC_BEGIN_DYN / REC_END), so they nest with the program's own
 *     scopes and Python calls on the same thread;
 *   - marks: an instant on the calling thread;
 *   - start/end ranges, which may end on another thread: a slice on the
 *     lane "NVTX <domain>" written when they end (nvtx_ranges.c);
 *   - nvtxNameOsThread: the calling thread's name, when the tid given is
 *     its own (a name for another thread is ignored: a thread's name is
 *     written into its own ring);
 *   - domains: push/pop ranges and marks named "<domain>: <message>", and
 *     a lane per domain for start/end ranges;
 *   - messages: ASCII, wide (UTF-32, converted to UTF-8) or registered
 *     strings, cut to NVTX_TEXT_MAX bytes; categories, colours and payloads
 *     are ignored.
 * Everything an NVTX caller passes is taken as it comes: attribute structs
 * are read only as far as their size says, strings only up to the bound,
 * and handles are indices into our own tables, never pointers we follow.
 */
#define NVTX_NO_IMPL   /* the types only: the program has its own NVTX */
#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <wchar.h>

#include "recorder.h"
#include "recorder/writer/lanes.h"

#include "config.h"
#include "convert.h"
#include "nvtx.h"

#define NVTX_STRINGS 4096u        /* registered strings */

/* ---- text ---------------------------------------------------------------- */

/* Copies at most cap-1 bytes of s, not cutting a UTF-8 sequence in two. */
static void text_ascii(char *out, size_t cap, const char *s) {
    size_t n = s ? strnlen(s, cap - 1) : 0;
    if (s && s[n]) /* cut: back off to the start of a character */
        while (n > 0 && ((unsigned char)s[n] & 0xc0u) == 0x80u) n--;
    memcpy(out, s ? s : "", n);
    out[n] = 0;
}

/* A wide string (UTF-32 on Linux) to UTF-8, at most cap-1 bytes; a value
 * that is not a character becomes U+FFFD. */
static void text_wide(char *out, size_t cap, const wchar_t *w) {
    size_t n = 0;
    for (size_t i = 0; w && i < cap && w[i]; i++) {
        uint32_t c = (uint32_t)w[i];
        if (c > 0x10ffffu || (c >= 0xd800u && c <= 0xdfffu)) c = 0xfffdu;
        unsigned char b[4];
        size_t k;
        if (c < 0x80u) {
            b[0] = (unsigned char)c;
            k = 1;
        } else if (c < 0x800u) {
            b[0] = (unsigned char)(0xc0u | (c >> 6));
            b[1] = (unsigned char)(0x80u | (c & 0x3fu));
            k = 2;
        } else if (c < 0x10000u) {
            b[0] = (unsigned char)(0xe0u | (c >> 12));
            b[1] = (unsigned char)(0x80u | ((c >> 6) & 0x3fu));
            b[2] = (unsigned char)(0x80u | (c & 0x3fu));
            k = 3;
        } else {
            b[0] = (unsigned char)(0xf0u | (c >> 18));
            b[1] = (unsigned char)(0x80u | ((c >> 12) & 0x3fu));
            b[2] = (unsigned char)(0x80u | ((c >> 6) & 0x3fu));
            b[3] = (unsigned char)(0x80u | (c & 0x3fu));
            k = 4;
        }
        if (n + k > cap - 1) break;
        memcpy(out + n, b, k);
        n += k;
    }
    out[n] = 0;
}

/* ---- tables: registered strings and domains ------------------------------ */

/* Written under the lock, read without it: an entry is complete before
 * the count that shows it is published. */
static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;
static char *strings[NVTX_STRINGS];
static uint32_t nstrings;
static char *domains[NVTX_DOMAINS];
static uint32_t ndomains = 1;   /* 0 is "default" */

const char *nvtx_domain_name(uint32_t dom) {
    if (dom == 0) return "default";
    if (dom >= __atomic_load_n(&ndomains, __ATOMIC_ACQUIRE)) return NULL;
    return domains[dom];
}

/* A handle NVTX gives back to us: our index, never followed as a pointer.
 * NULL and anything we did not hand out are the default domain. */
static uint32_t domain_of(nvtxDomainHandle_t h) {
    uintptr_t i = (uintptr_t)h;
    return i > 0 && i < __atomic_load_n(&ndomains, __ATOMIC_ACQUIRE) ? (uint32_t)i : 0;
}

static nvtxDomainHandle_t domain_create(const char *name) {
    if (!name[0] || !strcmp(name, "default")) return NULL;
    pthread_mutex_lock(&tables_lock);
    uintptr_t found = 0;
    for (uint32_t i = 1; i < ndomains && !found; i++)
        if (!strcmp(domains[i], name)) found = i;
    if (!found && ndomains < NVTX_DOMAINS && (domains[ndomains] = strdup(name)) != NULL) {
        found = ndomains;
        __atomic_store_n(&ndomains, ndomains + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&tables_lock);
    /* Past NVTX_DOMAINS: the default domain's (NULL) (docs/gpu.md). */
    return (nvtxDomainHandle_t)found;
}

static nvtxStringHandle_t string_register(const char *s) {
    pthread_mutex_lock(&tables_lock);
    uintptr_t found = 0;
    for (uint32_t i = 0; i < nstrings && !found; i++)
        if (!strcmp(strings[i], s)) found = i + 1;
    if (!found && nstrings < NVTX_STRINGS && (strings[nstrings] = strdup(s)) != NULL) {
        found = nstrings + 1;
        __atomic_store_n(&nstrings, nstrings + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&tables_lock);
    return (nvtxStringHandle_t)found;   /* 0 (none) when the table is full */
}

static const char *string_of(nvtxStringHandle_t h) {
    uintptr_t i = (uintptr_t)h;
    return i > 0 && i <= __atomic_load_n(&nstrings, __ATOMIC_ACQUIRE) ? strings[i - 1] : "";
}

/* ---- messages ------------------------------------------------------------ */

/* An event's message as UTF-8 ("" if it has none or one of a kind we do
 * not read).  The struct is read only as far as its size field says. */
static void attr_text(char *out, size_t cap, const nvtxEventAttributes_t *a) {
    out[0] = 0;
    if (!a || a->size < offsetof(nvtxEventAttributes_t, message) + sizeof a->message) return;
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII: text_ascii(out, cap, a->message.ascii); break;
    case NVTX_MESSAGE_TYPE_UNICODE: text_wide(out, cap, a->message.unicode); break;
    case NVTX_MESSAGE_TYPE_REGISTERED: text_ascii(out, cap, string_of(a->message.registered)); break;
    default: break;
    }
}

/* The name of a scope or mark: "<domain>: <message>" outside the default
 * domain (built in out), else the message itself; `none` when there is
 * no message. */
static const char *event_name(char *out, size_t cap, uint32_t dom, const char *msg, const char *none) {
    const char *m = msg[0] ? msg : none;
    const char *d = dom ? nvtx_domain_name(dom) : NULL;
    if (!d) return m;   /* already a bounded copy: the common case costs no copy */
    char tmp[NVTX_DOMAIN_NAME_MAX + NVTX_TEXT_MAX + 4];
    snprintf(tmp, sizeof tmp, "%s: %s", d, m);
    text_ascii(out, cap, tmp);
    return out;
}

/* ---- the GPU state ------------------------------------------------------- */

/* "NVTX only" is said in the segment when NVTX initialises, and again in
 * a forked child's own segment at its first NVTX event (NVTX does not
 * initialise twice). */
static int state_pending;

static void atfork_child(void) { __atomic_store_n(&state_pending, 1, __ATOMIC_RELAXED); }

static void say_state(void) {
    /* NVTX alone (no CUDA, or CUDA not initialised yet), unless the CUDA
     * part already said more (inject.c sets REC_GPU_ON or REC_GPU_REFUSED
     * over this). */
    rec_gpu_state_set_if(REC_GPU_NONE, REC_GPU_NVTX_ONLY);
}

static inline void state_check(void) {
    if (__builtin_expect(__atomic_load_n(&state_pending, __ATOMIC_RELAXED), 0)) {
        __atomic_store_n(&state_pending, 0, __ATOMIC_RELAXED);
        say_state();
    }
}

/* ---- push/pop and marks: on the calling thread ----------------------------- */

/* The calling thread's push depth (NVTX's return values); a pop with
 * nothing pushed records nothing, so it cannot end a scope of the
 * program's own. */
static __thread int push_depth;

static int push(uint32_t dom, const char *msg) {
    state_check();
    char buf[NVTX_TEXT_MAX + 1];
    REC_BEGIN_DYN(event_name(buf, sizeof buf, dom, msg, "NVTX range"));
    return push_depth++;
}

static int pop(void) {
    if (push_depth <= 0) return -1;
    REC_END();
    return --push_depth;
}

static void mark(uint32_t dom, const char *msg) {
    state_check();
    char buf[NVTX_TEXT_MAX + 1];
    rec__instant(rec__intern_dyn(event_name(buf, sizeof buf, dom, msg, "NVTX mark")), NULL);
}

static uint64_t start(uint32_t dom, const char *msg) {
    state_check();
    return nvtx_range_start(dom, msg[0] ? msg : "NVTX range");
}

/* ---- the CORE module ------------------------------------------------------- */

/* NVTX's entry points that take a text differ only in its form (event
 * attributes, ASCII or wide) and in what they do with it, converted into a
 * bounded buffer: TEXT_ENTRY returns what `call` does, TEXT_ACTION
 * returns nothing. */
#define TEXT_ENTRY(ret, fn, params, cap, conv, src, call) \
    static ret fn params {                                \
        char m[(cap) + 1];                                \
        conv(m, sizeof m, src);                           \
        return call;                                      \
    }
#define TEXT_ACTION(fn, params, cap, conv, src, call) \
    static void fn params {                           \
        char m[(cap) + 1];                            \
        conv(m, sizeof m, src);                       \
        call;                                         \
    }

TEXT_ACTION(core_MarkEx, (const nvtxEventAttributes_t *a), NVTX_TEXT_MAX, attr_text, a, mark(0, m))
TEXT_ACTION(core_MarkA, (const char *s), NVTX_TEXT_MAX, text_ascii, s, mark(0, m))
TEXT_ACTION(core_MarkW, (const wchar_t *s), NVTX_TEXT_MAX, text_wide, s, mark(0, m))
TEXT_ENTRY(nvtxRangeId_t, core_RangeStartEx, (const nvtxEventAttributes_t *a), NVTX_TEXT_MAX, attr_text, a, start(0, m))
TEXT_ENTRY(nvtxRangeId_t, core_RangeStartA, (const char *s), NVTX_TEXT_MAX, text_ascii, s, start(0, m))
TEXT_ENTRY(nvtxRangeId_t, core_RangeStartW, (const wchar_t *s), NVTX_TEXT_MAX, text_wide, s, start(0, m))
static void core_RangeEnd(nvtxRangeId_t id) { nvtx_range_end(id); }
TEXT_ENTRY(int, core_RangePushEx, (const nvtxEventAttributes_t *a), NVTX_TEXT_MAX, attr_text, a, push(0, m))
TEXT_ENTRY(int, core_RangePushA, (const char *s), NVTX_TEXT_MAX, text_ascii, s, push(0, m))
TEXT_ENTRY(int, core_RangePushW, (const wchar_t *s), NVTX_TEXT_MAX, text_wide, s, push(0, m))
static int core_RangePop(void) { return pop(); }

/* Only the calling thread's own name can be written (into its ring). */
static void name_thread(uint32_t tid, const char *name) {
    if (tid == (uint32_t)syscall(SYS_gettid) && name[0]) REC_THREAD_NAME(name);
}
#define THREAD_NAME_MAX 63   /* bytes of a thread's name converted (REC_THREAD_NAME bounds it again) */
TEXT_ACTION(core_NameOsThreadA, (uint32_t tid, const char *s), THREAD_NAME_MAX, text_ascii, s, name_thread(tid, m))
TEXT_ACTION(core_NameOsThreadW, (uint32_t tid, const wchar_t *s), THREAD_NAME_MAX, text_wide, s, name_thread(tid, m))

/* ---- the CORE2 module: domains ------------------------------------------- */

TEXT_ACTION(dom_MarkEx, (nvtxDomainHandle_t d, const nvtxEventAttributes_t *a),
            NVTX_TEXT_MAX, attr_text, a, mark(domain_of(d), m))
TEXT_ENTRY(nvtxRangeId_t, dom_RangeStartEx, (nvtxDomainHandle_t d, const nvtxEventAttributes_t *a),
            NVTX_TEXT_MAX, attr_text, a, start(domain_of(d), m))
static void dom_RangeEnd(nvtxDomainHandle_t d, nvtxRangeId_t id) {
    (void)d;   /* the id says which range (and so which domain) */
    nvtx_range_end(id);
}
TEXT_ENTRY(int, dom_RangePushEx, (nvtxDomainHandle_t d, const nvtxEventAttributes_t *a),
            NVTX_TEXT_MAX, attr_text, a, push(domain_of(d), m))
/* One stack per thread for every domain: a pop ends the thread's newest
 * push, whichever domain pushed it (docs/gpu.md). */
static int dom_RangePop(nvtxDomainHandle_t d) {
    (void)d;
    return pop();
}
TEXT_ENTRY(nvtxStringHandle_t, dom_RegisterStringA, (nvtxDomainHandle_t d, const char *s),
            NVTX_TEXT_MAX, text_ascii, s, ((void)d, string_register(m)))
TEXT_ENTRY(nvtxStringHandle_t, dom_RegisterStringW, (nvtxDomainHandle_t d, const wchar_t *s),
            NVTX_TEXT_MAX, text_wide, s, ((void)d, string_register(m)))
TEXT_ENTRY(nvtxDomainHandle_t, dom_CreateA, (const char *s), NVTX_DOMAIN_NAME_MAX, text_ascii, s, domain_create(m))
TEXT_ENTRY(nvtxDomainHandle_t, dom_CreateW, (const wchar_t *s), NVTX_DOMAIN_NAME_MAX, text_wide, s, domain_create(m))
/* Kept: its events already written name it, and a later create of the
 * same name gets the same handle back. */
static void dom_Destroy(nvtxDomainHandle_t d) { (void)d; }

/* ---- the entry point ----------------------------------------------------- */

#define SLOT(tab, id, fn) tab[id] = (NvtxFunctionPointer)(fn)

/* Points each slot of NVTX's table for module mod that we fill at ours. */
static int fill(const NvtxExportTableCallbacks *cb, NvtxCallbackModule mod, NvtxFunctionPointer *fns, unsigned n) {
    NvtxFunctionTable table = NULL;
    unsigned size = 0;
    if (!cb->GetModuleFunctionTable(mod, &table, &size) || !table) return 0;
    for (unsigned i = 1; i < size && i < n; i++)
        if (table[i] && fns[i]) *table[i] = fns[i];
    return 1;
}

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get) {
    if (!get) return 0;
    /* RECORDER_CUDA without "nvtx": decline, and NVTX's calls stay no-ops. */
    if (!(gpu_config_items() & GPU_ITEM_NVTX)) return 0;
    const NvtxExportTableCallbacks *cb = (const NvtxExportTableCallbacks *)get(NVTX_ETID_CALLBACKS);
    if (!cb || cb->struct_size < sizeof *cb || !cb->GetModuleFunctionTable) return 0;
    NvtxFunctionPointer core[NVTX_CBID_CORE_SIZE] = {0}, core2[NVTX_CBID_CORE2_SIZE] = {0};
    SLOT(core, NVTX_CBID_CORE_MarkEx, core_MarkEx);
    SLOT(core, NVTX_CBID_CORE_MarkA, core_MarkA);
    SLOT(core, NVTX_CBID_CORE_MarkW, core_MarkW);
    SLOT(core, NVTX_CBID_CORE_RangeStartEx, core_RangeStartEx);
    SLOT(core, NVTX_CBID_CORE_RangeStartA, core_RangeStartA);
    SLOT(core, NVTX_CBID_CORE_RangeStartW, core_RangeStartW);
    SLOT(core, NVTX_CBID_CORE_RangeEnd, core_RangeEnd);
    SLOT(core, NVTX_CBID_CORE_RangePushEx, core_RangePushEx);
    SLOT(core, NVTX_CBID_CORE_RangePushA, core_RangePushA);
    SLOT(core, NVTX_CBID_CORE_RangePushW, core_RangePushW);
    SLOT(core, NVTX_CBID_CORE_RangePop, core_RangePop);
    SLOT(core, NVTX_CBID_CORE_NameOsThreadA, core_NameOsThreadA);
    SLOT(core, NVTX_CBID_CORE_NameOsThreadW, core_NameOsThreadW);
    SLOT(core2, NVTX_CBID_CORE2_DomainMarkEx, dom_MarkEx);
    SLOT(core2, NVTX_CBID_CORE2_DomainRangeStartEx, dom_RangeStartEx);
    SLOT(core2, NVTX_CBID_CORE2_DomainRangeEnd, dom_RangeEnd);
    SLOT(core2, NVTX_CBID_CORE2_DomainRangePushEx, dom_RangePushEx);
    SLOT(core2, NVTX_CBID_CORE2_DomainRangePop, dom_RangePop);
    SLOT(core2, NVTX_CBID_CORE2_DomainRegisterStringA, dom_RegisterStringA);
    SLOT(core2, NVTX_CBID_CORE2_DomainRegisterStringW, dom_RegisterStringW);
    SLOT(core2, NVTX_CBID_CORE2_DomainCreateA, dom_CreateA);
    SLOT(core2, NVTX_CBID_CORE2_DomainCreateW, dom_CreateW);
    SLOT(core2, NVTX_CBID_CORE2_DomainDestroy, dom_Destroy);
    if (!fill(cb, NVTX_CB_MODULE_CORE, core, NVTX_CBID_CORE_SIZE)) return 0;
    fill(cb, NVTX_CB_MODULE_CORE2, core2, NVTX_CBID_CORE2_SIZE);   /* an NVTX before domains has none */
    const NvtxExportTableVersionInfo *vi = (const NvtxExportTableVersionInfo *)get(NVTX_ETID_VERSIONINFO);
    if (vi && vi->struct_size >= sizeof *vi && vi->SetInjectionNvtxVersion) vi->SetInjectionNvtxVersion(NVTX_VERSION);
    nvtx_ranges_init();
    pthread_atfork(NULL, NULL, atfork_child);
    say_state();
    return 1;
}
