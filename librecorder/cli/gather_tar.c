/*
 * gather_tar.c -- a ustar archive written member by member, and a bounded
 * scan of a Perfetto protobuf trace for its machines (gather_tar.h), for
 * `recorder gather` (cmd_gather.c).
 *
 * The archive is what Perfetto's trace processor reads (its TAR reader
 * takes "ustar\0" "00" headers, octal sizes and plain names; docs/scale.md
 * cites it): regular members only, no links, no directories, owner 0 and
 * mode 0600, so that extracting it plants nothing.  The scan reads what
 * the file holds and no more: every length is checked against the bytes
 * left before anything is allocated or skipped.
 */
#include "gather_tar.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int gt_name_ok(const char *name) {
    size_t n = strlen(name);
    if (n == 0 || n > GT_MAX_NAME || name[0] == '.') return 0;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("._+,=@-", c)))
            return 0;
    }
    return 1;
}

static int fail(char *err, size_t errlen, const char *what) {
    snprintf(err, errlen, "%s", what);
    return -1;
}

static void octal(char *field, size_t width, uint64_t v) {
    /* width - 1 digits and a NUL, as ustar writes them */
    field[width - 1] = 0;
    for (size_t i = width - 1; i-- > 0; v >>= 3) field[i] = (char)('0' + (v & 7));
}

static int header(FILE *out, const char *name, uint64_t size, int64_t mtime, char *err, size_t errlen) {
    if (!gt_name_ok(name)) return fail(err, errlen, "a member name outside the allowed characters");
    if (size > GT_MAX_MEMBER) return fail(err, errlen, "larger than the 8 GiB a ustar member can hold");
    unsigned char h[512];
    memset(h, 0, sizeof h);
    memcpy(h, name, strlen(name));            /* name[100] */
    octal((char *)h + 100, 8, 0600);          /* mode */
    octal((char *)h + 108, 8, 0);             /* uid */
    octal((char *)h + 116, 8, 0);             /* gid */
    octal((char *)h + 124, 12, size);
    octal((char *)h + 136, 12, mtime > 0 ? (uint64_t)mtime : 0);
    h[156] = '0';                             /* a regular file */
    memcpy(h + 257, "ustar", 6);              /* magic "ustar\0", version "00" */
    memcpy(h + 263, "00", 2);
    memset(h + 148, ' ', 8);                  /* the checksum counts its own field as spaces */
    unsigned sum = 0;
    for (size_t i = 0; i < sizeof h; i++) sum += h[i];
    octal((char *)h + 148, 7, sum);           /* six digits, NUL, space */
    h[155] = ' ';
    if (fwrite(h, 1, sizeof h, out) != sizeof h) return fail(err, errlen, strerror(errno));
    return 0;
}

static int pad(FILE *out, uint64_t size, char *err, size_t errlen) {
    static const unsigned char zero[512];
    size_t n = (size_t)((512 - size % 512) % 512);
    if (n && fwrite(zero, 1, n, out) != n) return fail(err, errlen, strerror(errno));
    return 0;
}

int gt_member_file(FILE *out, const char *name, FILE *in, uint64_t size, int64_t mtime, char *err, size_t errlen) {
    if (header(out, name, size, mtime, err, errlen) != 0) return -1;
    if (fseeko(in, 0, SEEK_SET) != 0) return fail(err, errlen, strerror(errno));
    char buf[1 << 16];
    for (uint64_t left = size; left > 0;) {
        size_t want = left < sizeof buf ? (size_t)left : sizeof buf;
        size_t got = fread(buf, 1, want, in);
        if (got == 0) return fail(err, errlen, ferror(in) ? strerror(errno) : "it shrank while being read");
        if (fwrite(buf, 1, got, out) != got) return fail(err, errlen, strerror(errno));
        left -= got;
    }
    return pad(out, size, err, errlen);
}

int gt_member_mem(FILE *out, const char *name, const void *data, size_t size, int64_t mtime, char *err,
                  size_t errlen) {
    if (header(out, name, size, mtime, err, errlen) != 0) return -1;
    if (size && fwrite(data, 1, size, out) != size) return fail(err, errlen, strerror(errno));
    return pad(out, size, err, errlen);
}

int gt_end(FILE *out, char *err, size_t errlen) {
    static const unsigned char zero[1024];
    if (fwrite(zero, 1, sizeof zero, out) != sizeof zero) return fail(err, errlen, strerror(errno));
    return 0;
}

/* ---- the scan ------------------------------------------------------------------ */

/* A varint from p (at most end), into *v: the bytes used, 0 if it is cut
 * or longer than 10 bytes. */
static size_t varint(const unsigned char *p, const unsigned char *end, uint64_t *v) {
    uint64_t x = 0;
    for (size_t i = 0; i < 10 && p + i < end; i++) {
        x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            *v = x;
            return i + 1;
        }
    }
    return 0;
}

/* The same from a stream, counting bytes into *pos. */
static int fvarint(FILE *in, uint64_t *pos, uint64_t *v) {
    uint64_t x = 0;
    for (int i = 0; i < 10; i++) {
        int c = getc(in);
        if (c == EOF) return -1;
        (*pos)++;
        x |= (uint64_t)(c & 0x7f) << (7 * i);
        if (!(c & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

static void note_id(struct gt_scan *s, uint32_t id) {
    for (unsigned i = 0; i < s->n_ids; i++)
        if (s->ids[i] == id) return;
    if (s->n_ids < GT_MAX_MACHINES) s->ids[s->n_ids] = id;
    s->n_ids++;   /* past the bound: counted, refused by the caller */
}

/* One TracePacket's fields (len bytes at p): its machine_id, if any. */
static int scan_packet(const unsigned char *p, size_t len, struct gt_scan *s) {
    const unsigned char *end = p + len;
    uint32_t id = 0;
    while (p < end) {
        uint64_t tag, v;
        size_t k = varint(p, end, &tag);
        if (!k) return -1;
        p += k;
        unsigned field = (unsigned)(tag >> 3), wire = (unsigned)(tag & 7);
        switch (wire) {
        case 0:
            if (!(k = varint(p, end, &v))) return -1;
            p += k;
            if (field == 98) {
                if (v > UINT32_MAX) return -1;
                id = (uint32_t)v;   /* a field given twice: the last one counts */
            }
            break;
        case 1:
            if ((size_t)(end - p) < 8) return -1;
            p += 8;
            break;
        case 2:
            if (!(k = varint(p, end, &v)) || v > (uint64_t)(end - (p + k))) return -1;
            p += k + v;
            if (field == 50 || field == 133) s->compressed++;   /* compressed_packets, zstd_compressed_packets */
            break;
        case 5:
            if ((size_t)(end - p) < 4) return -1;
            p += 4;
            break;
        default: return -1;   /* groups (3, 4) and wire types 6, 7: no TracePacket has them */
        }
    }
    /* An explicit 0 is the host, as no machine_id is: untagged, not a
     * machine of its own (the manifest would name id 0 twice). */
    if (id) note_id(s, id);
    else s->untagged++;
    return 0;
}

int gt_scan_trace(FILE *in, uint64_t size, struct gt_scan *s, char *err, size_t errlen) {
    memset(s, 0, sizeof *s);
    if (fseeko(in, 0, SEEK_SET) != 0) return fail(err, errlen, strerror(errno));
    unsigned char *buf = NULL;
    size_t cap = 0;
    uint64_t pos = 0;
    int rc = 0;
    while (pos < size && rc == 0) {
        uint64_t at = pos, tag, len;
        if (fvarint(in, &pos, &tag) != 0 || (tag & 7) != 2 || fvarint(in, &pos, &len) != 0 || len > size - pos) {
            snprintf(err, errlen, "not a Perfetto protobuf trace (a field that does not fit at byte %llu)",
                     (unsigned long long)at);
            rc = -1;
            break;
        }
        if ((tag >> 3) != 1) {   /* not a packet: Trace has no other field; stepped over */
            if (fseeko(in, (off_t)len, SEEK_CUR) != 0) rc = fail(err, errlen, strerror(errno));
            pos += len;
            continue;
        }
        if (len > GT_MAX_PACKET) {
            snprintf(err, errlen, "a packet of %llu bytes at byte %llu: more than the 16 MiB gather reads",
                     (unsigned long long)len, (unsigned long long)at);
            rc = -1;
            break;
        }
        if (len > cap) {   /* bounded by what the file holds (len <= size - pos) */
            unsigned char *b = realloc(buf, (size_t)len);
            if (!b) {
                rc = fail(err, errlen, "out of memory");
                break;
            }
            buf = b;
            cap = (size_t)len;
        }
        if (len && fread(buf, 1, (size_t)len, in) != (size_t)len) {
            rc = fail(err, errlen, "it shrank while being read");
            break;
        }
        pos += len;
        s->packets++;
        if (scan_packet(buf, (size_t)len, s) != 0) {
            snprintf(err, errlen, "not a Perfetto protobuf trace (packet %llu at byte %llu does not decode)",
                     (unsigned long long)s->packets, (unsigned long long)at);
            rc = -1;
        }
    }
    free(buf);
    if (rc == 0 && s->n_ids > GT_MAX_MACHINES)
        rc = fail(err, errlen, "its packets name more than 64 machines");
    return rc;
}
