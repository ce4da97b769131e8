/*
 * replay_input.c -- reads cupti_replay's inputs (replay_input.h), both
 * hostile: regular files only (a FIFO or device would block or never
 * end), opened without blocking and without following a FIFO's writer;
 * buffers.bin's frames are checked against the file's real size before a
 * byte of them is used; records.jsonl is parsed line by line by a small
 * strict JSON reader (every line must be one JSON object; only the fields
 * the replay needs are kept), with its line length and count bounded.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay_input.h"

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return -1;
}

/* The whole of a regular file, bounded by REPLAY_FILE_MAX. */
static int slurp(const char *path, uint8_t **out, size_t *size, char *err, size_t cap) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return fail(err, cap, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return fail(err, cap, "%s: not a regular file", path);
    }
    if ((uint64_t)st.st_size > REPLAY_FILE_MAX) {
        close(fd);
        return fail(err, cap, "%s: larger than %llu bytes", path, (unsigned long long)REPLAY_FILE_MAX);
    }
    size_t n = (size_t)st.st_size, got = 0;
    uint8_t *b = malloc(n + 1);
    if (!b) {
        close(fd);
        return fail(err, cap, "%s: out of memory", path);
    }
    while (got < n) {
        ssize_t r = read(fd, b + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;   /* the file shrank: use what it holds */
        got += (size_t)r;
    }
    close(fd);
    b[got] = 0;
    *out = b;
    *size = got;
    return 0;
}

static uint32_t rd32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static uint64_t rd64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

#define FRAME_MAGIC 0x30465542u

static int load_bin(struct replay_input *in, const char *path, char *err, size_t cap) {
    if (slurp(path, &in->bin, &in->bin_size, err, cap)) return -1;
    const uint8_t *b = in->bin;
    size_t n = in->bin_size;
    if (n < 64 || memcmp(b, "CUPTIBUF", 8) != 0) return fail(err, cap, "%s: not a CUPTI buffers file", path);
    uint32_t version = rd32(b + 8), hsize = rd32(b + 12), psize = rd32(b + 44), fhsize = rd32(b + 48);
    if (version != 1) return fail(err, cap, "%s: format version %u, this reads 1", path, version);
    if (hsize < 64 || hsize > n) return fail(err, cap, "%s: header size %u out of the file's %zu bytes", path, hsize, n);
    if (psize != 8) return fail(err, cap, "%s: pointer size %u, this reads 8", path, psize);
    if (fhsize < 48 || fhsize > 4096) return fail(err, cap, "%s: frame header size %u", path, fhsize);
    in->api_version = rd32(b + 20);
    /* Frames to the file's end; each one's size bounded by what is left. */
    size_t off = hsize, cap_frames = 0;
    while (off < n) {
        if (n - off < fhsize) return fail(err, cap, "%s: frame header at byte %zu cut by the file's end", path, off);
        if (rd32(b + off) != FRAME_MAGIC) return fail(err, cap, "%s: no frame magic at byte %zu", path, off);
        uint64_t valid = rd64(b + off + 8);
        if (valid > n - off - fhsize)
            return fail(err, cap, "%s: frame at byte %zu says %llu bytes, the file holds %zu", path, off,
                        (unsigned long long)valid, n - off - fhsize);
        if (in->nframes == cap_frames) {
            cap_frames = cap_frames ? cap_frames * 2 : 16;
            struct replay_frame *f = realloc(in->frames, cap_frames * sizeof *f);
            if (!f) return fail(err, cap, "out of memory");
            in->frames = f;
        }
        in->frames[in->nframes++] = (struct replay_frame){rd32(b + off + 4), b + off + fhsize, (size_t)valid};
        off += fhsize + (size_t)valid;
    }
    return 0;
}

/* ---- a strict JSON reader for one line -------------------------------- */
struct jp {
    const char *p, *end;
};

static void ws(struct jp *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\r')) j->p++;
}

static int hex4(const char *p, unsigned *v) {
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char ch = p[i];
        unsigned d = ch >= '0' && ch <= '9' ? (unsigned)(ch - '0')
                     : ch >= 'a' && ch <= 'f' ? (unsigned)(ch - 'a' + 10)
                     : ch >= 'A' && ch <= 'F' ? (unsigned)(ch - 'A' + 10) : 16u;
        if (d > 15) return -1;
        *v = *v * 16 + d;
    }
    return 0;
}

/* A string; decoded into out (cap > 0, cut there) when out is given. */
static int jstr(struct jp *j, char *out, size_t cap) {
    size_t n = 0;
    if (j->p >= j->end || *j->p != '"') return -1;
    j->p++;
    while (j->p < j->end) {
        unsigned char ch = (unsigned char)*j->p++;
        char buf[4];
        size_t k = 1;
        if (ch == '"') {
            if (out) out[n] = 0;
            return 0;
        }
        if (ch < 0x20) return -1;
        buf[0] = (char)ch;
        if (ch == '\\') {
            if (j->p >= j->end) return -1;
            char e = *j->p++;
            switch (e) {
            case '"': case '\\': case '/': buf[0] = e; break;
            case 'b': buf[0] = '\b'; break;
            case 'f': buf[0] = '\f'; break;
            case 'n': buf[0] = '\n'; break;
            case 'r': buf[0] = '\r'; break;
            case 't': buf[0] = '\t'; break;
            case 'u': {
                unsigned u;
                if (j->end - j->p < 4 || hex4(j->p, &u)) return -1;
                j->p += 4;
                if (u == 0) u = '?';   /* no NUL inside a name */
                if (u >= 0xd800 && u <= 0xdfff) u = 0xfffd;   /* surrogates: not kept */
                if (u < 0x80) buf[0] = (char)u;
                else if (u < 0x800) {
                    buf[0] = (char)(0xc0 | (u >> 6));
                    buf[1] = (char)(0x80 | (u & 0x3f));
                    k = 2;
                } else {
                    buf[0] = (char)(0xe0 | (u >> 12));
                    buf[1] = (char)(0x80 | ((u >> 6) & 0x3f));
                    buf[2] = (char)(0x80 | (u & 0x3f));
                    k = 3;
                }
                break;
            }
            default: return -1;
            }
        }
        if (out && n + k < cap) {
            memcpy(out + n, buf, k);
            n += k;
        }
    }
    return -1;
}

/* A number; *u its value when it is a non-negative integer that fits. */
static int jnum(struct jp *j, uint64_t *u, int *is_u) {
    const char *s = j->p;
    uint64_t v = 0;
    int ok = 1;
    if (j->p < j->end && *j->p == '-') {
        ok = 0;
        j->p++;
    }
    if (j->p >= j->end || *j->p < '0' || *j->p > '9') return -1;
    if (*j->p == '0' && j->p + 1 < j->end && j->p[1] >= '0' && j->p[1] <= '9') return -1;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
        unsigned d = (unsigned)(*j->p++ - '0');
        if (v > (UINT64_MAX - d) / 10) ok = 0;
        else v = v * 10 + d;
    }
    if (j->p < j->end && *j->p == '.') {
        ok = 0;
        j->p++;
        if (j->p >= j->end || *j->p < '0' || *j->p > '9') return -1;
        while (j->p < j->end && *j->p >= '0' && *j->p <= '9') j->p++;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        ok = 0;
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-')) j->p++;
        if (j->p >= j->end || *j->p < '0' || *j->p > '9') return -1;
        while (j->p < j->end && *j->p >= '0' && *j->p <= '9') j->p++;
    }
    *u = v;
    *is_u = ok && j->p > s;
    return 0;
}

static int jlit(struct jp *j, const char *w) {
    size_t n = strlen(w);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n)) return -1;
    j->p += n;
    return 0;
}

/* Any value, skipped (depth-bounded). */
static int jskip(struct jp *j, int depth) {
    uint64_t u;
    int isu;
    ws(j);
    if (j->p >= j->end || depth > 32) return -1;
    char ch = *j->p;
    if (ch == '"') return jstr(j, NULL, 0);
    if (ch == 't') return jlit(j, "true");
    if (ch == 'f') return jlit(j, "false");
    if (ch == 'n') return jlit(j, "null");
    if (ch == '{' || ch == '[') {
        char close = ch == '{' ? '}' : ']';
        j->p++;
        ws(j);
        if (j->p < j->end && *j->p == close) {
            j->p++;
            return 0;
        }
        for (;;) {
            if (ch == '{') {
                ws(j);
                if (jstr(j, NULL, 0)) return -1;
                ws(j);
                if (j->p >= j->end || *j->p++ != ':') return -1;
            }
            if (jskip(j, depth + 1)) return -1;
            ws(j);
            if (j->p >= j->end) return -1;
            if (*j->p == ',') {
                j->p++;
                continue;
            }
            if (*j->p++ != close) return -1;
            return 0;
        }
    }
    return jnum(j, &u, &isu);
}

struct line_fields {
    char type[16];
    uint64_t buf, off, cupti, mono_before, mono_after;
    unsigned have;            /* bits: 1 buf, 2 off, 4 cupti, 8 before, 16 after */
    char *name, *domain;      /* malloc'd; NULL if absent or null */
};

/* A string-or-null field's value, malloc'd (NULL for null). */
static int jstr_dup(struct jp *j, char **out) {
    ws(j);
    if (j->p < j->end && *j->p == 'n') return jlit(j, "null");
    const char *s = j->p;
    if (jskip(j, 0) || *s != '"') return -1;
    size_t cap = (size_t)(j->p - s) + 1;
    char *b = malloc(cap);
    if (!b) return -1;
    struct jp k = {s, j->p};
    jstr(&k, b, cap);
    free(*out);
    *out = b;
    return 0;
}

static int parse_line(const char *s, size_t n, struct line_fields *f) {
    struct jp j = {s, s + n};
    ws(&j);
    if (j.p >= j.end || *j.p++ != '{') return -1;
    ws(&j);
    if (j.p < j.end && *j.p == '}') return 0;
    for (;;) {
        char key[24];
        ws(&j);
        if (jstr(&j, key, sizeof key)) return -1;
        ws(&j);
        if (j.p >= j.end || *j.p++ != ':') return -1;
        ws(&j);
        static const char *const nums[5] = {"buf", "off", "cupti", "mono_before", "mono_after"};
        int which = -1;
        for (int i = 0; i < 5; i++)
            if (!strcmp(key, nums[i])) which = i;
        if (which >= 0 && j.p < j.end && *j.p != '"' && *j.p != 'n') {
            uint64_t v;
            int isu;
            if (jnum(&j, &v, &isu)) return -1;
            if (isu) {
                uint64_t *dst[5] = {&f->buf, &f->off, &f->cupti, &f->mono_before, &f->mono_after};
                *dst[which] = v;
                f->have |= 1u << which;
            }
        } else if (!strcmp(key, "type") && j.p < j.end && *j.p == '"') {
            if (jstr(&j, f->type, sizeof f->type)) return -1;
        } else if (!strcmp(key, "name") || !strcmp(key, "domain")) {
            if (jstr_dup(&j, key[0] == 'n' ? &f->name : &f->domain)) return -1;
        } else if (jskip(&j, 0)) {
            return -1;
        }
        ws(&j);
        if (j.p >= j.end) return -1;
        if (*j.p == ',') {
            j.p++;
            continue;
        }
        if (*j.p++ != '}') return -1;
        ws(&j);
        return j.p == j.end ? 0 : -1;
    }
}

static int by_key(const void *a, const void *b) {
    const struct replay_name *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

static int load_jsonl(struct replay_input *in, const char *path, char *err, size_t cap) {
    if (slurp(path, (uint8_t **)&in->jsonl, &in->jsonl_size, err, cap)) return -1;
    const char *p = in->jsonl, *end = p + in->jsonl_size;
    size_t line = 0, cap_names = 0, cap_clocks = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        line++;
        if (line > REPLAY_LINES_MAX) return fail(err, cap, "%s: more than %u lines", path, REPLAY_LINES_MAX);
        if ((size_t)(le - p) > REPLAY_LINE_MAX)
            return fail(err, cap, "%s:%zu: line longer than %u bytes", path, line, REPLAY_LINE_MAX);
        struct line_fields f = {0};
        const char *q = p;
        while (q < le && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
        if (q < le) {
            if (parse_line(p, (size_t)(le - p), &f)) {
                free(f.name);
                free(f.domain);
                return fail(err, cap, "%s:%zu: not a JSON object", path, line);
            }
            if (!strcmp(f.type, "record") && (f.name || f.domain)) {
                if (!(f.have & 1) || !(f.have & 2) || f.buf > UINT32_MAX || f.off > UINT32_MAX) {
                    free(f.name);
                    free(f.domain);
                    return fail(err, cap, "%s:%zu: a record without a valid buf and off", path, line);
                }
                if (in->nnames == cap_names) {
                    cap_names = cap_names ? cap_names * 2 : 256;
                    struct replay_name *r = realloc(in->names, cap_names * sizeof *r);
                    if (!r) return fail(err, cap, "out of memory");
                    in->names = r;
                }
                in->names[in->nnames++] = (struct replay_name){f.buf << 32 | f.off, f.name, f.domain};
                f.name = f.domain = NULL;
            } else if (!strcmp(f.type, "clock") && (f.have & 28) == 28 && f.mono_after >= f.mono_before) {
                if (in->nclocks == cap_clocks) {
                    cap_clocks = cap_clocks ? cap_clocks * 2 : 16;
                    struct replay_clock *r = realloc(in->clocks, cap_clocks * sizeof *r);
                    if (!r) return fail(err, cap, "out of memory");
                    in->clocks = r;
                }
                in->clocks[in->nclocks++] =
                    (struct replay_clock){f.cupti, f.mono_before + (f.mono_after - f.mono_before) / 2};
            }
            free(f.name);
            free(f.domain);
        }
        p = nl ? nl + 1 : end;
    }
    if (in->nnames > 1) qsort(in->names, in->nnames, sizeof *in->names, by_key);
    return 0;
}

int replay_load(struct replay_input *in, const char *bin_path, const char *jsonl_path, char *err, size_t cap) {
    memset(in, 0, sizeof *in);
    if (load_bin(in, bin_path, err, cap) || load_jsonl(in, jsonl_path, err, cap)) return -1;
    if (in->nclocks == 0) return fail(err, cap, "%s: no clock pairs (\"type\":\"clock\" lines)", jsonl_path);
    return 0;
}

void replay_free(struct replay_input *in) {
    for (size_t i = 0; i < in->nnames; i++) {
        free(in->names[i].name);
        free(in->names[i].domain);
    }
    free(in->names);
    free(in->clocks);
    free(in->frames);
    free(in->bin);
    free(in->jsonl);
    memset(in, 0, sizeof *in);
}

const char *replay_name(void *ctx, size_t rec_off, int field, uint64_t ptr) {
    struct replay_input *in = ctx;
    (void)ptr;
    if (rec_off > UINT32_MAX || !in->nnames) return NULL;
    struct replay_name k = {(uint64_t)in->cur_buf << 32 | rec_off, NULL, NULL};
    const struct replay_name *r = bsearch(&k, in->names, in->nnames, sizeof k, by_key);
    if (!r) return NULL;
    return field == 1 ? r->domain : r->name;
}
