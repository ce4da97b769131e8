/*
 * writer_config.h -- the writer's configuration, read once from the
 * environment.  Part of the implementation of recorder.h; included only by
 * the file that defines RECORDER_IMPLEMENTATION.
 *
 * A bad value gets one line on stderr and the default: configuration must
 * never be able to crash the program it observes.
 */

#define REC__DEF_RING_KB      1024u
#define REC__DEF_MAX_THREADS  256u
#define REC__DEF_STRINGS_KB   131072u /* the limit: a reserve, committed as names come */
#define REC__MAX_FILTERS      32

struct rec__config {
    int enabled;
    int keep;                        /* every process's segment (RECORDER_KEEP=1) */
    int keep_pid;                    /* only this process's (RECORDER_KEEP=pid:N) */
    unsigned mode;                   /* REC_MODE_* at start */
    uint64_t ring_entries;           /* power of two */
    uint32_t max_threads;
    uint64_t strings_size;
    uint32_t index_entries;
    char name[64];                   /* "" = recorder.<pid> */
    int32_t launcher_pid;            /* RECORDER_LAUNCHER=pid:start, 0 if none */
    uint64_t launcher_start;
    int n_filter, n_filter_out;
    int filtering;                   /* n_filter or n_filter_out: one test on a new name's path */
    char *filter[REC__MAX_FILTERS];
    char *filter_out[REC__MAX_FILTERS];
    unsigned char filter_sub[REC__MAX_FILTERS]; /* filter[i] keeps its subtree */
    int n_sub;                       /* how many do */
};

static void rec__warn(const char *var, const char *val, const char *why) {
    /* One line, whatever the value holds: control bytes (a newline, a
     * terminal escape) are shown as '?'. */
    char shown[41];
    size_t n = 0;
    for (; n < sizeof shown - 1 && val[n]; n++)
        shown[n] = (unsigned char)val[n] < 0x20 || val[n] == 0x7f ? '?' : val[n];
    shown[n] = 0;
    fprintf(stderr, "recorder: ignoring %s=\"%s\": %s\n", var, shown, why);
}

/* An unsigned integer in [lo, hi], or dflt with a warning. */
static uint64_t rec__env_uint(const char *var, uint64_t dflt, uint64_t lo, uint64_t hi) {
    const char *v = getenv(var);
    if (!v || !*v) return dflt;
    char *end = NULL;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || end == v || *end || v[0] == '-') {
        rec__warn(var, v, "not a number");
        return dflt;
    }
    if (x < lo || x > hi) {
        char why[80];
        snprintf(why, sizeof why, "must be between %llu and %llu",
                 (unsigned long long)lo, (unsigned long long)hi);
        rec__warn(var, v, why);
        return dflt;
    }
    return x;
}

static int rec__env_bool(const char *var, int dflt) {
    const char *v = getenv(var);
    if (!v || !*v) return dflt;
    if (!strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "on")) return 1;
    if (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off")) return 0;
    rec__warn(var, v, "expected 0 or 1");
    return dflt;
}

/* RECORDER_KEEP: a boolean, or pid:N to keep only the segment of process
 * N, not those of the processes it forks or runs (recorder capture --
 * CMD sets it so). */
static void rec__env_keep(struct rec__config *c) {
    const char *v = getenv("RECORDER_KEEP");
    c->keep_pid = 0;
    if (v && !strncmp(v, "pid:", 4)) {
        char *end;
        unsigned long n = v[4] >= '1' && v[4] <= '9' ? strtoul(v + 4, &end, 10) : 0;
        c->keep = 0;
        if (n && !*end && n <= 0x7fffffffUL) c->keep_pid = (int)n;
        else rec__warn("RECORDER_KEEP", v, "expected 0, 1 or pid:N");
        return;
    }
    c->keep = rec__env_bool("RECORDER_KEEP", 0);
}

/* Kept on purpose (RECORDER_KEEP=1, or pid:N naming this process): the
 * segment stays after a clean exit, and its header says so
 * (REC_FLAG_KEEP), so that `recorder gc` leaves it unless --all.  The
 * other reason to keep it, a launcher waiting for it, is rec__keeps()
 * in writer_segment.h. */
static inline int rec__keeps_on_purpose(const struct rec__config *c) {
    return c->keep || (c->keep_pid > 0 && c->keep_pid == (int)getpid());
}

static uint64_t rec__pow2_up(uint64_t x) {
    uint64_t p = 1;
    while (p < x) p <<= 1;
    return p;
}

/* "a,b,,c" -> {"a","b","c"}; empty items are skipped. */
static int rec__split_list(const char *var, char **out) {
    const char *v = getenv(var);
    int n = 0;
    if (!v) return 0;
    while (*v) {
        const char *c = strchr(v, ',');
        size_t len = c ? (size_t)(c - v) : strlen(v);
        if (len && n < REC__MAX_FILTERS) {
            char *s = (char *)malloc(len + 1);
            if (!s) break;
            memcpy(s, v, len);
            s[len] = 0;
            out[n++] = s;
        } else if (len) {
            rec__warn(var, v, "too many items; the rest are ignored");
            break;
        }
        v += len + (c ? 1 : 0);
    }
    return n;
}

static void rec__config_free(struct rec__config *c) {
    for (int i = 0; i < c->n_filter; i++) free(c->filter[i]);
    for (int i = 0; i < c->n_filter_out; i++) free(c->filter_out[i]);
    c->n_filter = c->n_filter_out = 0;
    c->filtering = 0;
}

/* RECORDER_LAUNCHER=PID:START: set by `recorder run` and `recorder capture
 * -- CMD` for the tree they start, and copied into the header, so that
 * they find every segment of that tree by its header, however short the
 * process's life (docs/format.md, "launcher"). */
static void rec__env_launcher(struct rec__config *c) {
    const char *v = getenv("RECORDER_LAUNCHER");
    if (!v || !*v) return;
    char *end = NULL;
    errno = 0;
    unsigned long long pid = strtoull(v, &end, 10), start = 0;
    int ok = !errno && end != v && *end == ':' && pid > 0 && pid <= 0x7fffffffULL;
    if (ok) {
        const char *s2 = end + 1;
        start = strtoull(s2, &end, 10);
        ok = !errno && end != s2 && !*end && start > 0;
    }
    if (!ok) {
        rec__warn("RECORDER_LAUNCHER", v, "expected PID:START");
        return;
    }
    c->launcher_pid = (int32_t)pid;
    c->launcher_start = start;
}

/* Subtree filters.  An item of RECORDER_FILTER that ends in '/' (the
 * slash is not part of the substring), or every item under
 * RECORDER_FILTER_MODE=subtree, keeps the subtree of a scope it matches:
 * what the thread records while that scope is open, whatever its name
 * (RECORDER_FILTER_OUT still applies).  RECORDER_FILTER_MODE=name, the
 * default, matches names only. */
static void rec__env_filter_mode(struct rec__config *c) {
    const char *mode = getenv("RECORDER_FILTER_MODE");
    int all = 0;
    if (mode && *mode) {
        if (!strcmp(mode, "subtree")) all = 1;
        else if (strcmp(mode, "name")) rec__warn("RECORDER_FILTER_MODE", mode, "expected name or subtree");
    }
    int n = 0;
    for (int i = 0; i < c->n_filter; i++) {
        char *f = c->filter[i];
        size_t len = strlen(f);
        int sub = all;
        if (f[len - 1] == '/') {
            f[--len] = 0;
            sub = 1;
        }
        if (!len) {  /* "/" alone: no substring */
            rec__warn("RECORDER_FILTER", "/", "an item is only '/'; it is ignored");
            free(f);
            continue;
        }
        c->filter[n] = f;
        c->filter_sub[n] = (unsigned char)sub;
        c->n_sub += sub;
        n++;
    }
    c->n_filter = n;
    for (int i = 0; i < c->n_filter_out; i++) {
        size_t len = strlen(c->filter_out[i]);
        if (c->filter_out[i][len - 1] == '/')
            rec__warn("RECORDER_FILTER_OUT", c->filter_out[i], "a trailing '/' means nothing here; matched as written");
    }
    c->filtering = c->n_filter > 0 || c->n_filter_out > 0;
}

/* The string table's geometry (writer_strtab.h): level 0 of the index is
 * what the whole index was when the table was a fixed 1 MiB; the index
 * reserves 4 bytes per 8 bytes of strings, room for its levels at a
 * quarter full when the table holds names of 16 to 40 bytes. */
#define REC__STRINGS_FIRST (UINT64_C(1) << 20)  /* committed at creation */
static uint32_t rec__index_base_for(uint64_t strings_size) {
    uint64_t first = strings_size < REC__STRINGS_FIRST ? strings_size : REC__STRINGS_FIRST;
    uint64_t b = rec__pow2_up(first / 32);
    return (uint32_t)(b < 64 ? 64 : b);
}
static uint32_t rec__index_entries_for(uint64_t strings_size) {
    uint64_t n = rec__pow2_up(strings_size / 8), b = rec__index_base_for(strings_size);
    return (uint32_t)(n < b ? b : n);
}

static void rec__config_read(struct rec__config *c) {
    memset(c, 0, sizeof *c);
    c->enabled = rec__env_bool("RECORDER", 1);
    rec__env_keep(c);
    uint64_t kb = rec__env_uint("RECORDER_RING_KB", REC__DEF_RING_KB, 4, 1u << 20);
    uint64_t entries = rec__pow2_up(kb * 1024 / sizeof(struct rec_entry));
    if (entries * sizeof(struct rec_entry) != kb * 1024 && getenv("RECORDER_RING_KB"))
        fprintf(stderr, "recorder: RECORDER_RING_KB=%llu rounded up to %llu (a power of two)\n",
                (unsigned long long)kb,
                (unsigned long long)(entries * sizeof(struct rec_entry) / 1024));
    c->ring_entries = entries;
    c->max_threads = (uint32_t)rec__env_uint("RECORDER_MAX_THREADS", REC__DEF_MAX_THREADS, 1, 65536);
    uint64_t skb = rec__env_uint("RECORDER_STRINGS_KB", REC__DEF_STRINGS_KB, 16, 1u << 20);
    c->strings_size = skb * 1024;
    c->index_entries = rec__index_entries_for(c->strings_size);
    const char *mode = getenv("RECORDER_MODE");
    c->mode = REC_MODE_FLIGHT;
    if (mode && *mode) {
        if (!strcmp(mode, "stream")) c->mode = REC_MODE_STREAM;
        else if (strcmp(mode, "flight")) rec__warn("RECORDER_MODE", mode, "expected flight or stream");
    }
    const char *name = getenv("RECORDER_NAME");
    if (name && *name) {
        size_t n = strlen(name), ok = n < sizeof c->name - 16;
        for (size_t i = 0; ok && i < n; i++) {
            char ch = name[i];
            ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '_' || ch == '-' || (ch == '.' && i > 0);
        }
        if (ok) memcpy(c->name, name, n + 1);
        else rec__warn("RECORDER_NAME", name, "use at most 47 of [A-Za-z0-9._-]");
    }
    rec__env_launcher(c);
    c->n_filter = rec__split_list("RECORDER_FILTER", c->filter);
    c->n_filter_out = rec__split_list("RECORDER_FILTER_OUT", c->filter_out);
    rec__env_filter_mode(c);
}

/* Substring filters, as rocm-timeline-generator's: a name is kept if it
 * matches an item of RECORDER_FILTER (or that is unset) and no item of
 * RECORDER_FILTER_OUT.  With subtree items, a name they do not keep is
 * kept only inside a kept subtree (REC__COND) and a name a subtree item
 * matches opens one (REC__ROOT); RECORDER_FILTER_OUT wins over both. */
#define REC__KEEP 0u
#define REC__DROP 1u
#define REC__COND 2u
#define REC__ROOT 3u
static unsigned rec__verdict(const struct rec__config *c, const char *name) {
    for (int i = 0; i < c->n_filter_out; i++)
        if (strstr(name, c->filter_out[i])) return REC__DROP;
    if (c->n_filter == 0) return REC__KEEP;
    unsigned v = c->n_sub ? REC__COND : REC__DROP;
    for (int i = 0; i < c->n_filter; i++)
        if (strstr(name, c->filter[i])) {
            if (c->filter_sub[i]) return REC__ROOT;
            v = REC__KEEP;
        }
    return v;
}
