/*
 * bench_args.h -- the command-line rule every benchmark program follows
 * (test bench_help, bench/check_help.sh): --help prints the usage on
 * stdout and exits 0 before anything runs; an unknown option, a missing
 * value or a number out of its range says why in one line, then the
 * usage line, on stderr, and exits 2.  A benchmark that ran on a typo
 * would take seconds to minutes, and one that read "1e6" as 1 would
 * measure something else.
 *
 * Header-only: the programs under bench/ are separate executables with no
 * library of their own.
 */
#ifndef BENCH_ARGS_H
#define BENCH_ARGS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 if arg asks for the usage (--help or -h). */
static inline int bench_is_help(const char *arg) { return !strcmp(arg, "--help") || !strcmp(arg, "-h"); }

/* The bad command line's message; returns 2, main's status. */
static inline int bench_bad(const char *prog, const char *usage_line, const char *why, const char *arg) {
    fprintf(stderr, "%s: %s%s%s\n%s", prog, why, arg ? ": " : "", arg ? arg : "", usage_line);
    return 2;
}

/* A whole decimal number from lo to hi into *out; -1 if s is not one
 * (empty, trailing characters, out of range, or past long long). */
static inline int bench_parse_ll(const char *s, long long lo, long long hi, long long *out) {
    char *end = NULL;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || end == s || *end || x < lo || x > hi) return -1;
    *out = x;
    return 0;
}

/* A real number (1e6, 1000000.0) from lo to hi into *out; -1 if not. */
static inline int bench_parse_d(const char *s, double lo, double hi, double *out) {
    char *end = NULL;
    double x = strtod(s, &end);
    if (end == s || *end || !(x >= lo && x <= hi)) return -1;
    *out = x;
    return 0;
}

#endif
