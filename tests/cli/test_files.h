/*
 * test_files.h -- whole files in and out for the capture tests
 * (test_capture.c, test_capture_lazy.c): read a file into memory, write
 * bytes as a file.  Failures stop the test (REQUIRE).
 */
#ifndef RECORDER_TEST_FILES_H
#define RECORDER_TEST_FILES_H

#include <stdio.h>
#include <stdlib.h>

#include "check.h"

static unsigned char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    REQUIRE(f);
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc((size_t)sz + 1);
    REQUIRE(p && fread(p, 1, (size_t)sz, f) == (size_t)sz);
    fclose(f);
    *n = (size_t)sz;
    return p;
}

static void spit(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    REQUIRE(f);
    REQUIRE(n == 0 || fwrite(p, 1, n, f) == n);
    fclose(f);
}

#endif
