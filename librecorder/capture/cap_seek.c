/*
 * cap_seek.c -- a capture reader's position, told and returned to
 * (rec_cap_tell, rec_cap_seek): what a time index keeps so that a viewer
 * reads the stretch of a large file a page asks for, not the file up to
 * it (recorder-web's fileidx.c, docs/web.md "Saved traces").
 *
 * A seek is refused unless it lands where this handle has been: inside
 * the valid part, at or before what it has checked, on a process and a
 * run it knows.  Every record read after it is checked again (its
 * sequence number among them), so a position from elsewhere cannot make
 * the reader trust bytes it never checked.
 */
#include "cap_read.h"
#include "internal.h"
#include "recorder/capture.h"

void rec_cap_tell(const rec_cap *c, struct rec_cap_pos *p) {
    p->off = c->pos;
    p->seq = c->seq;
    p->tag = c->tag;
    p->run_i = c->run_i;
}

int rec_cap_seek(rec_cap *c, const struct rec_cap_pos *p) {
    if (p->off < c->first_record || p->off > c->info.valid_size || (c->lazy && p->off > c->checked) ||
        p->tag >= (c->nfile ? c->nfile : 1) || p->run_i > c->nruns || (p->off == c->first_record && p->seq != 0))
        return REC_ERR_USAGE;
    c->pos = p->off;
    c->seq = p->seq;
    c->tag = p->tag;
    c->run_i = (size_t)p->run_i;
    return REC_OK;
}
