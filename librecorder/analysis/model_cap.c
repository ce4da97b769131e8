/*
 * model_cap.c -- a model of a capture file: its source (pid, process,
 * clock) and names from the capture, so that every consumer of captures
 * (recorder report and convert, the exporters, recorder-web) makes it the
 * same way.
 */
#include <string.h>

#include "model.h"
#include "recorder/capture.h"

const char *rec_cap_string_fn(void *cap, uint32_t id) { return rec_cap_string((rec_cap *)cap, id); }

void rec_cap_source_info(const rec_cap *c, struct rec_source_info *si) {
    const struct rec_cap_info *in = rec_cap_get_info(c);
    memset(si, 0, sizeof *si);
    si->pid = in->pid;
    memcpy(si->process_name, in->process_name, sizeof si->process_name);
    si->ticks_per_sec = in->ticks_per_sec;
    si->ticks0 = in->ticks0;
    si->real_ns0 = in->real_ns0;
    si->mono_ns0 = in->mono_ns0;
    si->machine_id = in->machine_id;   /* where it was recorded, not where it is read */
}

rec_model *rec_model_new_cap(rec_cap *c, const struct rec_model_opts *opts) {
    struct rec_source_info si;
    rec_cap_source_info(c, &si);
    return rec_model_new(&si, rec_cap_string_fn, c, opts);
}
