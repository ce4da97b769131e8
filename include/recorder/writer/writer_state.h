/*
 * writer_state.h -- the process's writer state (rec__g): its settings and
 * its segment's mapping, which every other part of the implementation of
 * recorder.h reads.  First after writer_config.h, so the string table, the
 * segment and the threads each depend only on what comes before them.
 */

enum { REC__UNINIT = 0, REC__BUSY = 1, REC__READY = 2, REC__OFF = 3 };

static struct rec__global {
    int state;                       /* REC__* (atomic) */
    int fd;                          /* kept for posix_fallocate of rings */
    int created;                     /* this copy created the segment */
    unsigned char *base;
    size_t size;
    struct rec_header *hdr;
    struct rec_consumer *cons;
    struct rec_slot *slots;
    uint32_t *index;
    unsigned char *strings;
    unsigned char *rings;
    char shm_name[112];              /* "/recorder.<pid>" */
    char path[112];                  /* "/dev/shm/recorder.<pid>" */
    struct rec__config cfg;
    pthread_key_t key;
    int key_ok, hooks_done;
    unsigned char *parent_base;      /* after fork(): the parent's mapping */
    size_t parent_size;
} rec__g = {REC__UNINIT, -1, 0, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, "", "",
            {0, 0, 0, 0, 0, 0, 0, 0, "", 0, 0, 0, 0, 0, {0}, {0}, {0}, 0}, 0, 0, 0, NULL, 0};

static struct rec_slot rec__dummy_slot;
static const uint64_t rec__zero_limit = 0;
