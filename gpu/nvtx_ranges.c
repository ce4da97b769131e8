/*
 * nvtx_ranges.c -- NVTX start/end ranges (nvtxRangeStart / nvtxRangeEnd):
 * a range may end on another thread than the one that started it, and
 * ranges may overlap without nesting, so they cannot be scopes of a
 * thread.  Each becomes, when it ends, one slice on a lane of its domain,
 * "NVTX <domain>" (lanes.h, REC_LANE_RANGES), written with its start time.
 *
 * A lane's events may not go back in time, so a range that starts before
 * the lane's last slice ended (they overlap) goes to the first sub-lane
 * where it fits, "NVTX <domain> #2" ... "#8", as the GPU's stream lanes
 * do; one that fits nowhere is counted lost on the domain's lane.  Open
 * ranges wait in a table of NVTX_OPEN_RANGES; a range that finds it full
 * is counted lost there too (rec_lane_lost: every reader reports it as
 * dropped).  One mutex serialises the table and every lane write.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "recorder.h"
#include "recorder/writer/lanes.h"

#include "convert.h"   /* GPU_SUBLANES: the same bound as the GPU's lanes */
#include "nvtx.h"

struct open_range {
    uint64_t id;              /* 0: free */
    uint64_t start;           /* ticks */
    uint32_t dom;
    uint32_t name_id;         /* 0: filtered out (still ended, not written) */
};

struct dom_lanes {
    struct rec_lane lane[GPU_SUBLANES];
    uint8_t open[GPU_SUBLANES];   /* 1 opened, 2 could not be opened */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct open_range open_ranges[NVTX_OPEN_RANGES];
static struct dom_lanes lanes[NVTX_DOMAINS];
static uint64_t next_id = 1;

/* A forked child records into a segment of its own (the writer's atfork
 * handler), but these lanes are slots of the parent's, still mapped:
 * forgotten, to be opened again in the child's segment.  Ranges the
 * parent started are not the child's to end.  The lock may have been
 * held by a thread that does not exist in the child. */
static void nvtx_ranges_atfork_child(void) {
    pthread_mutex_init(&lock, NULL);
    memset(open_ranges, 0, sizeof open_ranges);
    memset(lanes, 0, sizeof lanes);
}

void nvtx_ranges_init(void) { pthread_atfork(NULL, NULL, nvtx_ranges_atfork_child); }

/* The domain's lane k (0: "NVTX <domain>", k: "... #k+1"), opened at its
 * first use; NULL if it cannot be (every slot in use: counted by the
 * writer as a thread not recorded).  Under the lock. */
static struct rec_lane *lane_get(uint32_t dom, unsigned k) {
    struct dom_lanes *d = &lanes[dom];
    if (d->open[k] == 0) {
        const char *dn = nvtx_domain_name(dom);
        char name[64];
        if (k == 0) snprintf(name, sizeof name, "NVTX %s", dn ? dn : "default");
        else snprintf(name, sizeof name, "NVTX %s #%u", dn ? dn : "default", k + 1);
        struct rec_lane_desc desc = {REC_LANE_RANGES, 0, 0, 0, 0, name};
        d->open[k] = rec_lane_open(&d->lane[k], &desc) == 0 ? 1 : 2;
    }
    return d->open[k] == 1 ? &d->lane[k] : NULL;
}

static void lost(uint32_t dom) {
    struct rec_lane *l = lane_get(dom, 0);
    if (l) rec_lane_lost(l, 1);
}

uint64_t nvtx_range_start(uint32_t dom, const char *name) {
    uint64_t now = rec_now();
    uint32_t name_id = rec_lane_name(name, strlen(name));
    if (dom >= NVTX_DOMAINS) dom = 0;
    pthread_mutex_lock(&lock);
    uint64_t id = next_id++;
    struct open_range *r = NULL;
    for (unsigned i = 0; i < NVTX_OPEN_RANGES && !r; i++) {
        struct open_range *c = &open_ranges[(id + i) % NVTX_OPEN_RANGES];
        if (c->id == 0) r = c;
    }
    if (r) *r = (struct open_range){id, now, dom, name_id};
    else {
        lost(dom);
        id = 0;
    }
    pthread_mutex_unlock(&lock);
    return id;
}

void nvtx_range_end(uint64_t id) {
    if (id == 0) return;
    uint64_t now = rec_now();
    pthread_mutex_lock(&lock);
    struct open_range *r = NULL;
    for (unsigned i = 0; i < NVTX_OPEN_RANGES && !r; i++) {
        struct open_range *c = &open_ranges[(id + i) % NVTX_OPEN_RANGES];
        if (c->id == id) r = c;
    }
    if (r) {
        struct open_range g = *r;
        r->id = 0;
        int placed = g.name_id == 0;   /* filtered out: nothing to write */
        for (unsigned k = 0; k < GPU_SUBLANES && !placed; k++) {
            struct rec_lane *l = lane_get(g.dom, k);
            if (!l) break;
            /* Fits if it starts at or after the lane's last event. */
            if (g.start < l->last_ticks) continue;
            if (rec_lane_begin(l, g.start, g.name_id) != REC_LANE_OK) break;
            rec_lane_end(l, now > g.start ? now : g.start, g.name_id);
            placed = 1;
        }
        if (!placed) lost(g.dom);
    }
    pthread_mutex_unlock(&lock);
}
