/*
 * cap_probe.c -- opens a capture as the viewers do (rec_cap_open_lazy, or
 * rec_cap_open with "full") and reads every process to its end, printing
 * what a viewer would show of it: the hostile-file tests
 * (test_capture_bounds.py) run it under an address-space limit and check
 * its counts.
 *
 *   cap_probe FILE lazy|full|handles
 *
 * (handles: rec_cap_open, then a rec_cap_open_process handle of each
 * process, as convert --split reads them.)
 *
 * Prints, per process, "process K pid P entries E overwritten O dropped D
 * bad B history H" (the info's counts once read), then "warning: ...".
 */
#include <stdio.h>
#include <string.h>

#include "recorder/capture.h"

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: cap_probe FILE lazy|full|handles\n");
        return 2;
    }
    char err[512];
    rec_cap *c;
    int lazy = !strcmp(argv[2], "lazy");
    int rc = lazy ? rec_cap_open_lazy(argv[1], &c, err, sizeof err) : rec_cap_open(argv[1], &c, err, sizeof err);
    if (rc != REC_OK) {
        fprintf(stderr, "cap_probe: %s\n", err);
        return 1;
    }
    size_t n = rec_cap_processes(c);
    rec_cap *h = NULL;
    for (size_t k = 0; k < n; k++) {
        if (!strcmp(argv[2], "handles")) {
            rec_cap_close(h);
            if (rec_cap_open_process(c, k, &h, err, sizeof err) != REC_OK) {
                fprintf(stderr, "cap_probe: %s\n", err);
                return 1;
            }
        } else if (rec_cap_select(c, k) != REC_OK) {
            return 1;
        }
        rec_cap *one = h ? h : c;
        struct rec_cap_item it;
        int r;
        while ((r = rec_cap_next(one, &it)) == 1) {
        }
        if (r < 0) {
            fprintf(stderr, "cap_probe: read error %d\n", r);
            return 1;
        }
        const struct rec_cap_info *in = rec_cap_get_info(one);
        printf("process %zu pid %d entries %llu overwritten %llu dropped %llu bad %llu history %llu\n", k, in->pid,
               (unsigned long long)in->entries, (unsigned long long)in->overwritten,
               (unsigned long long)in->dropped, (unsigned long long)in->bad, (unsigned long long)in->history);
    }
    printf("warning: %s\n", rec_cap_get_info(h ? h : c)->warning);
    rec_cap_close(c);   /* before h: the handles share the file */
    rec_cap_close(h);
    return 0;
}
