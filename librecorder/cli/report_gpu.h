/* report_gpu.h -- `recorder report`'s per-device GPU sections (report_gpu.c). */
#ifndef REC_CLI_REPORT_GPU_H
#define REC_CLI_REPORT_GPU_H

#include <stddef.h>

#include "recorder/analysis.h"

/* Prints a "Resource=GPU<d>" section per device with lanes, its top N
 * names (every gap bucket besides); returns the devices printed. */
size_t report_gpus(rec_model *m, size_t top);

#endif
