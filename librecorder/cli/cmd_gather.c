/*
 * cmd_gather.c -- `recorder gather -o job.tar A.pftrace B.rec ...`: one
 * job's traces in the archive Perfetto's trace processor (and the UI)
 * opens as one merged trace, with the trace manifest that keeps each
 * machine's processes apart and relates clocks by hand (docs/scale.md).
 *
 * Captures (.rec) are converted to .pftrace first (the same export as
 * `recorder convert`, into a private temporary directory); every .pftrace
 * is scanned (gather_tar.c) for the machine ids its packets carry, which
 * the manifest names "machine-<id in hex>": files of one machine share
 * one, whatever their pids.  The archive goes through the output rule of
 * every -o (recorder/outfile.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "export.h"
#include "gather_tar.h"

static const char usage[] =
    "usage: recorder gather -o OUT.tar [--offset FILE=NS ...] TRACE...\n"
    "\n"
    "Put one job's traces into one TAR archive that Perfetto's trace processor\n"
    "and ui.perfetto.dev open as one merged trace (docs/scale.md).  TRACE is a\n"
    "Perfetto protobuf trace (.pftrace, .perfetto-trace) or a capture (.rec),\n"
    "converted on the way.  The archive holds each trace under its file name\n"
    "(.rec becomes .pftrace) and a trace manifest (perfetto_manifest.json)\n"
    "that puts each trace on the machine its packets name (recorded where the\n"
    "program ran: recorder writes it in every trace), so that processes of\n"
    "different machines stay apart even when their pids are the same.\n"
    "\n"
    "  -o, --output OUT     the archive (OUT.tar, or - for stdout): written aside\n"
    "                       and renamed, mode 0600; a device or FIFO written to\n"
    "      --offset FILE=NS FILE's wall clock (REALTIME) reads NS nanoseconds\n"
    "                       behind the first TRACE's (negative: ahead); without\n"
    "                       it machines line up by their wall clocks (NTP)\n"
    "\n"
    "Names in the archive must be 1-99 bytes of letters, digits and ._+,=@-,\n"
    "not starting with '.', and distinct.  A trace that names no machine (from\n"
    "an older recorder) is left to trace processor's default machine, with a\n"
    "warning.  Progress: a line per trace on stderr.\n";

struct member {
    const char *input;        /* as given */
    char name[GT_MAX_NAME + 1];
    char conv[PATH_MAX];      /* the converted .pftrace, "" if the input is one */
    struct gt_scan scan;
    int has_offset;
    long long offset;
    uint64_t size;            /* bytes in the archive */
    int rec;                  /* a capture: converted first */
};

/* What went in, said once the archive is complete (a write that fails at
 * the end leaves one line: the error). */
static void say_member(const struct member *m) {
    char mach[64] = "", sz[32], in[1024];
    for (unsigned j = 0; j < m->scan.n_ids && j < 4; j++)
        snprintf(mach + strlen(mach), sizeof mach - strlen(mach), "%s%08x", j ? ", " : "", m->scan.ids[j]);
    /* The name is the archive's (gt_name_ok: plain characters); the input's
     * path may hold anything. */
    fprintf(stderr, "recorder: gather: %s as %s (%s, %llu packets, machine %s)\n", cli_safe(in, sizeof in, m->input),
            m->name,
            cli_bytes(sz, sizeof sz, (double)m->size), (unsigned long long)m->scan.packets,
            m->scan.n_ids ? mach : "not named");
    if (!m->scan.n_ids)
        cli_warn("%s names no machine (written by an older recorder?): trace processor puts it on its default "
                 "machine", m->input);
    else if (m->scan.compressed)
        cli_warn("%s holds compressed packets: machines named inside them are not in the manifest", m->input);
}

/* The member's name from the input's: its last component, .rec -> .pftrace.
 * What an input is, by export.c's one table of extensions. */
static int member_name(struct member *m) {
    const char *slash = strrchr(m->input, '/'), *base = slash ? slash + 1 : m->input;
    int f = cli_export_format_of_path(base), rec = f == CLI_FORMAT_CAPTURE;
    m->rec = rec;
    if (!rec && f != REC_EXPORT_PERFETTO)
        return cli_usage("gather", "%s: gather takes Perfetto protobuf traces (.pftrace, .perfetto-trace) and "
                         "captures (.rec)", m->input);
    size_t n = strlen(base) - (rec ? 4 : 0);
    if (n + (rec ? 8 : 0) > GT_MAX_NAME)
        return cli_usage("gather", "%s: its name in the archive would be longer than %d bytes", m->input, GT_MAX_NAME);
    snprintf(m->name, sizeof m->name, "%.*s%s", (int)n, base, rec ? ".pftrace" : "");
    if (!gt_name_ok(m->name))
        return cli_usage("gather", "%s: '%s' cannot name a trace in the archive: letters, digits and ._+,=@- only, "
                         "not starting with '.' (rename the file)", m->input, m->name);
    return REC_OK;
}

/* Open a trace to read: a regular file, never blocking on a FIFO.  NULL
 * with *rc the error's status (printed). */
static FILE *open_trace(const char *path, uint64_t *size, int64_t *mtime, int *rc) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        *rc = cli_error(e == EACCES ? REC_ERR_ACCESS : e == ENOENT ? REC_ERR_NOTFOUND : REC_ERR_IO, "%s: %s", path,
                        strerror(e));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        *rc = cli_error(REC_ERR_IO, "%s: not a regular file", path);
        return NULL;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        *rc = cli_error(REC_ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    *size = (uint64_t)st.st_size;
    *mtime = st.st_mtime;
    return f;
}

static void machine_name(char *buf, size_t cap, uint32_t id) {
    if (id) snprintf(buf, cap, "machine-%08x", id);
    else snprintf(buf, cap, "machine-unattributed");
}

/* The manifest (Perfetto's "Trace manifest format", version 1): each
 * trace's machines named, clocks related where --offset says.  Names are
 * of gt_name_ok's characters: nothing to escape. */
static char *manifest(const struct member *m, size_t n, size_t *len) {
    size_t cap = 256 + n * (2 * GT_MAX_NAME + 600 + (GT_MAX_MACHINES + 1) * 64), k = 0;
    char *s = malloc(cap), nm[32], ref[32];
    if (!s) return NULL;
#define PUT(...) (k += (size_t)snprintf(s + k, cap - k, __VA_ARGS__))
    PUT("{\"perfetto_manifest\": {\"version\": 1, \"files\": [");
    machine_name(ref, sizeof ref, m[0].scan.n_ids ? m[0].scan.ids[0] : 0);
    for (size_t i = 0; i < n; i++) {
        const struct gt_scan *sc = &m[i].scan;
        PUT("%s\n  {\"path\": \"%s\"", i ? "," : "", m[i].name);
        if (sc->n_ids) {
            PUT(", \"machines\": [");
            for (unsigned j = 0; j < sc->n_ids; j++) {
                machine_name(nm, sizeof nm, sc->ids[j]);
                PUT("%s{\"id\": %u, \"name\": \"%s\"}", j ? ", " : "", sc->ids[j], nm);
            }
            if (sc->untagged) PUT(", {\"id\": 0, \"name\": \"machine-unattributed\"}");
            PUT("]");
        }
        if (m[i].has_offset) {
            machine_name(nm, sizeof nm, sc->n_ids ? sc->ids[0] : 0);
            PUT(", \"clocks\": {\"clock\": \"REALTIME\"");
            if (sc->n_ids) PUT(", \"machine\": \"%s\"", nm);
            PUT(", \"sync_to\": {\"file\": \"%s\", \"clock\": \"REALTIME\"", m[0].name);
            if (m[0].scan.n_ids) PUT(", \"machine\": \"%s\"", ref);
            PUT("}, \"offset_ns\": %lld}", m[i].offset);
        }
        PUT("}");
    }
    PUT("\n]}}\n");
#undef PUT
    *len = k;
    return s;
}

static int parse_offset(const char *arg, struct member *m, size_t n) {
    const char *eq = strrchr(arg, '=');
    if (!eq || eq == arg) return cli_usage("gather", "--offset wants FILE=NANOSECONDS, not '%s'", arg);
    char *end;
    errno = 0;
    long long v = strtoll(eq + 1, &end, 10);
    if (errno || end == eq + 1 || *end || v == LLONG_MIN)
        return cli_usage("gather", "--offset %s: '%s' is not a number of nanoseconds", arg, eq + 1);
    size_t len = (size_t)(eq - arg);
    for (size_t i = 0; i < n; i++) {
        if ((strlen(m[i].input) == len && !strncmp(m[i].input, arg, len)) ||
            (strlen(m[i].name) == len && !strncmp(m[i].name, arg, len))) {
            if (i == 0) return cli_usage("gather", "--offset %s: the first trace is the reference of the others", arg);
            m[i].has_offset = 1;
            m[i].offset = v;
            return REC_OK;
        }
    }
    return cli_usage("gather", "--offset %s: %.*s is none of the traces given", arg, (int)len, arg);
}

/* A capture converted into dir; m->conv names the result. */
static int convert(struct member *m, const char *dir) {
    int n = snprintf(m->conv, sizeof m->conv, "%s/%s", dir, m->name);
    if (n < 0 || (size_t)n >= sizeof m->conv)
        return cli_error(REC_ERR_USAGE, "%s: the temporary folder's path is too long", m->input);
    /* The summary names the input and its member, not the temporary file
     * (removed once the archive is written). */
    char in[1024], shown[1200];
    snprintf(shown, sizeof shown, "gather: converted %s to %s", cli_safe(in, sizeof in, m->input), m->name);
    struct cli_export_opts eo = {m->conv, REC_EXPORT_PERFETTO, 0, 0, 0, 0, NULL, 0, shown};
    return cli_export(m->input, &eo);
}

static int add_member(FILE *out, struct member *m, int64_t now, const char *outpath) {
    const char *path = m->conv[0] ? m->conv : m->input;
    uint64_t size;
    int64_t mtime;
    int rc = REC_OK;
    FILE *in = open_trace(path, &size, &mtime, &rc);
    if (!in) return rc;
    char err[256];
    if (gt_scan_trace(in, size, &m->scan, err, sizeof err) != 0) rc = cli_error(REC_ERR_FORMAT, "%s: %s", m->input, err);
    else if (size > GT_MAX_MEMBER) rc = cli_error(REC_ERR_USAGE, "%s: larger than the 8 GiB a TAR member can hold", m->input);
    else if (gt_member_file(out, m->name, in, size, m->conv[0] ? now : mtime, err, sizeof err) != 0)
        rc = cli_error(REC_ERR_IO, "%s: %s (adding %s)", outpath, err, m->input);
    fclose(in);
    if (rc != REC_OK) return rc;
    m->size = size;
    return REC_OK;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Distinct machine ids of all the files, as the manifest names them (no
 * cap: a count that stopped at 64 would understate a big job). */
static size_t count_machines(const struct member *m, size_t n) {
    size_t total = 0, k = 0, ns = 0;
    for (size_t i = 0; i < n; i++) total += m[i].scan.n_ids;
    uint32_t *all = malloc((total ? total : 1) * sizeof *all);
    if (!all) return 0;
    for (size_t i = 0; i < n; i++)
        for (unsigned j = 0; j < m[i].scan.n_ids; j++) all[k++] = m[i].scan.ids[j];
    qsort(all, total, sizeof *all, cmp_u32);
    for (size_t i = 0; i < total; i++) ns += !i || all[i] != all[i - 1];
    free(all);
    return ns;
}

static int gather(struct member *m, size_t n, const char *outpath) {
    /* Captures first, into a directory of our own (mode 0700). */
    char dir[PATH_MAX] = "";
    int rc = REC_OK;
    for (size_t i = 0; i < n && rc == REC_OK; i++) {
        if (!m[i].rec) continue;
        if (!dir[0]) {
            const char *t = getenv("TMPDIR");
            snprintf(dir, sizeof dir, "%s/recorder-gather.XXXXXX", t && t[0] == '/' ? t : "/tmp");
            if (!mkdtemp(dir)) {
                rc = cli_error(REC_ERR_IO, "cannot make a temporary directory for the conversions: %s",
                               strerror(errno));
                dir[0] = 0;
                break;
            }
        }
        rc = convert(&m[i], dir);
    }
    struct cli_out out;
    int64_t now = (int64_t)time(NULL);
    if (rc == REC_OK) rc = cli_out_open(&out, outpath);
    if (rc == REC_OK) {
        char err[256];
        for (size_t i = 0; i < n && rc == REC_OK; i++) rc = add_member(out.f, &m[i], now, out.path);
        size_t len = 0;
        char *man = rc == REC_OK ? manifest(m, n, &len) : NULL;
        if (rc == REC_OK && !man) rc = cli_error(REC_ERR_NOMEM, "out of memory");
        if (rc == REC_OK && (gt_member_mem(out.f, "perfetto_manifest.json", man, len, now, err, sizeof err) != 0 ||
                             gt_end(out.f, err, sizeof err) != 0))
            rc = cli_error(REC_ERR_IO, "%s: %s", out.path, err);
        free(man);
        if (rc == REC_OK) rc = cli_out_commit(&out);
        else cli_out_abort(&out);
        if (rc == REC_OK) {
            for (size_t i = 0; i < n; i++) say_member(&m[i]);
            size_t ns = count_machines(m, n);
            fprintf(stderr, "recorder: wrote %s: %zu traces from %zu machines, and perfetto_manifest.json; open it "
                    "with trace_processor or ui.perfetto.dev\n", out.path, n, ns);
        }
    }
    for (size_t i = 0; i < n; i++)
        if (m[i].conv[0]) unlink(m[i].conv);
    if (dir[0]) rmdir(dir);
    return rc;
}

int cmd_gather(int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"offset", required_argument, 0, 'O'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *outpath = NULL;
    const char **offsets = calloc((size_t)argc, sizeof *offsets);
    size_t noff = 0;
    int c;
    if (!offsets) return cli_error(REC_ERR_NOMEM, "out of memory");
    optind = 0;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': outpath = optarg; break;
        case 'O': offsets[noff++] = optarg; break;
        case 'h': free(offsets); return cli_help(usage);
        default: free(offsets); return cli_bad_option("gather", c, argv);
        }
    }
    int rc = REC_OK;
    size_t n = (size_t)(argc - optind);
    struct member *m = NULL;
    if (!outpath) rc = cli_usage("gather", "missing -o OUT.tar");
    else if (n == 0) rc = cli_usage("gather", "which traces? recorder gather -o OUT.tar TRACE...");
    else {
        int f;   /* export.c's one table: .tar, or a name without an extension */
        rc = cli_out_format("gather", NULL, outpath, CLI_FORMAT_ARCHIVE, &f);
        /* The output rule (outfile.h) before the captures are converted,
         * which may take minutes: a refused -o is said first. */
        char err[1400];
        if (rc == REC_OK && strcmp(outpath, "-") && (rc = rec_out_check(outpath, err, sizeof err)) != REC_OK)
            cli_error(rc, "%s", err);
    }
    if (rc == REC_OK && !(m = calloc(n, sizeof *m))) rc = cli_error(REC_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n && rc == REC_OK; i++) {
        m[i].input = argv[optind + (int)i];
        rc = member_name(&m[i]);
        for (size_t j = 0; j < i && rc == REC_OK; j++)
            if (!strcmp(m[i].name, m[j].name))
                rc = cli_usage("gather", "%s and %s would both be %s in the archive (rename one)", m[j].input,
                               m[i].input, m[i].name);
    }
    for (size_t i = 0; i < noff && rc == REC_OK; i++) rc = parse_offset(offsets[i], m, n);
    if (rc == REC_OK) rc = gather(m, n, outpath);
    free(m);
    free(offsets);
    return rc;
}
