/*
 * seg_export.c -- test helper: a segment exported as Perfetto JSON through
 * librecorder's analysis layer (rec_model_poll_seg + rec_export_json), the
 * way `recorder dump` does it, without depending on the CLI.
 *
 *   seg_export TARGET OUT.json
 */
#include <stdio.h>
#include <string.h>

#include "recorder/analysis.h"

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: seg_export TARGET OUT.json\n");
        return 2;
    }
    rec_seg *s;
    char err[256];
    int rc = rec_seg_open(argv[1], 0, &s, err, sizeof err);
    if (rc != REC_OK) {
        fprintf(stderr, "seg_export: %s\n", err);
        return rc;
    }
    struct rec_model_opts opts = {0, 1, NULL};
    rec_model *m = rec_model_new_seg(s, &opts);
    if (!m) return 9;
    while (rec_model_poll_seg(m, s) > 0) {
    }
    FILE *f = fopen(argv[2], "w");
    if (!f) {
        perror(argv[2]);
        return 8;
    }
    rc = rec_export_json(m, f, NULL);
    if (fclose(f) != 0) rc = -1;
    rec_model_free(m);
    rec_seg_close(s);
    return rc == 0 ? 0 : 8;
}
