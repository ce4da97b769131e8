/*
 * options.h -- the command line of the demo inference.
 */
#ifndef INFERENCE_OPTIONS_H
#define INFERENCE_OPTIONS_H

#include "model.h"

struct options {
    struct model_config model;
    int threads;
    long tokens;               /* 0: until SIGINT/SIGTERM */
    double rate;               /* most tokens per second; 0: as fast as it goes */
    int quiet;
};

#define OPT_EXIT_USAGE 2       /* bad arguments (the recorder CLI's convention) */

/* Returns -1 to go on, or an exit status (0 after --help). */
int options_parse(struct options *o, int argc, char **argv);

#endif
