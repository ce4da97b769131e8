/*
 * machine.c -- this machine's identity (recorder/machine.h): a hash of
 * /etc/machine-id and the boot id, read with bounds, with a fallback for
 * every file that is missing.
 *
 * The files are the system's, but are read as any input: at most
 * ID_MAX bytes, only if they are regular files, without blocking (a FIFO
 * planted in a container's /etc must not hang an export).
 */
#define _GNU_SOURCE
#include "recorder/machine.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ID_MAX 256            /* a machine-id is 32 hex digits, a boot id 36 characters */

/* The first line of a small regular file, trimmed; its length (0: none). */
static size_t read_id(const char *path, char *buf) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return 0;
    struct stat st;
    size_t n = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        while (n < ID_MAX) {
            ssize_t r = read(fd, buf + n, ID_MAX - n);
            if (r <= 0) break;
            n += (size_t)r;
        }
    }
    close(fd);
    size_t k = 0;
    while (k < n && buf[k] != '\n' && buf[k] != '\0') k++;
    while (k > 0 && (buf[k - 1] == ' ' || buf[k - 1] == '\t' || buf[k - 1] == '\r')) k--;
    return k;
}

/* FNV-1a, 64 bits, over a part and its length (so that parts cannot run
 * into each other). */
static uint64_t mix(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    for (int i = 0; i < 8; i++) h = (h ^ (unsigned char)(n >> (8 * i))) * UINT64_C(0x100000001b3);
    return h;
}

void rec_machine_this(struct rec_machine *m) {
    char a[ID_MAX + 1], b[ID_MAX + 1];
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    const char *test = getenv("RECORDER_MACHINE_ID");
    if (test && test[0]) {
        m->from = REC_MACHINE_TEST;
        h = mix(h, "test", 4);
        h = mix(h, test, strnlen(test, ID_MAX));
    } else {
        size_t na = read_id("/etc/machine-id", a);
        if (!na) na = read_id("/var/lib/dbus/machine-id", a);
        m->from = REC_MACHINE_IDS;
        if (!na) {
            m->from = REC_MACHINE_HOSTNAME;
            if (gethostname(a, ID_MAX) != 0) a[0] = 0;
            a[ID_MAX] = 0;
            na = strlen(a);
        }
        size_t nb = read_id("/proc/sys/kernel/random/boot_id", b);
        h = mix(mix(h, a, na), b, nb);
    }
    /* A final mix, so that the 32 bits kept depend on every byte. */
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    m->hash = h;
    m->id = (uint32_t)(h ^ (h >> 32));
    if (m->id == 0) m->id = 1;   /* 0 means unknown (and the host, to Perfetto) */
}
