/*
 * pyname.h -- a Python scope's recorded name ("fib (bench.py:12)", or a
 * line's "bench.py:12 (fib)") split into a name and its file and line, for
 * the JSON exporter's args (pyname.c has the exact forms).
 */
#ifndef REC_ANALYSIS_PYNAME_H
#define REC_ANALYSIS_PYNAME_H

#include <stddef.h>
#include <stdint.h>

/* Internal to librecorder: not exported from the shared library. */
#pragma GCC visibility push(hidden)

enum { PYNAME_FUNC = 1, PYNAME_LINE = 2 };

/* The parts, each pointing into the name that was split. */
struct pyname {
    int kind;                 /* PYNAME_FUNC or PYNAME_LINE */
    const char *name;         /* PYNAME_FUNC: the qualified name */
    size_t name_len;
    const char *func;         /* PYNAME_LINE: the function */
    size_t func_len;
    const char *file;
    size_t file_len;
    const char *digits;       /* the line number as written */
    size_t digits_len;
    uint32_t line;
};

/* 1 and p filled if s (n bytes) is one of the two forms, else 0. */
int pyname_split(const char *s, size_t n, struct pyname *p);

/* The JSON fragment of such a name, "name":"fib","args":{"file":"bench.py",
 * "line":12} (malloc'd, *len bytes, not terminated), or NULL: not one of
 * the forms, or out of memory. */
char *pyname_json(const char *s, size_t n, uint32_t *len);

#pragma GCC visibility pop

#endif
