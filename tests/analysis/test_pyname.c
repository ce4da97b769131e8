/*
 * test_pyname.c -- a Python scope's recorded name split into the JSON
 * exporter's name and args (librecorder/analysis/pyname.c): the two forms
 * the Python hooks make, the exact fragment written, and every near miss
 * left as it is.  Built with pyname.c and outbuf.c themselves (the
 * functions are internal to librecorder).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pyname.h"

/* name -> the fragment written on its B and E, or NULL: not split. */
static void frag_is(const char *name, size_t n, const char *want) {
    uint32_t len = 0;
    char *got = pyname_json(name, n, &len);
    int ok = want ? got && len == strlen(want) && !memcmp(got, want, len) : got == NULL;
    if (!ok) {
        fprintf(stderr, "pyname_json(\"%.*s\") = %s%.*s%s, want %s\n", (int)n, name, got ? "'" : "",
                got ? (int)len : 4, got ? got : "NULL", got ? "'" : "", want ? want : "NULL");
        CHECK(0);
    } else {
        CHECK(1);
    }
    free(got);
}

#define FRAG(name, want) frag_is(name, sizeof(name) - 1, want)

static void test_forms(void) {
    FRAG("Model.forward (model.py:42)", "\"name\":\"Model.forward\",\"args\":{\"file\":\"model.py\",\"line\":42}");
    FRAG("<module> (<string>:1)", "\"name\":\"<module>\",\"args\":{\"file\":\"<string>\",\"line\":1}");
    FRAG("main (gui.pyw:3)", "\"name\":\"main\",\"args\":{\"file\":\"gui.pyw\",\"line\":3}");
    FRAG("pkg/mod.py:7 (f.<locals>.g)",
         "\"name\":\"pkg/mod.py:7\",\"args\":{\"function\":\"f.<locals>.g\",\"file\":\"pkg/mod.py\",\"line\":7}");
    /* The name keeps the digits as written; the args hold the number. */
    FRAG("a.py:007 (f)", "\"name\":\"a.py:007\",\"args\":{\"function\":\"f\",\"file\":\"a.py\",\"line\":7}");
    /* A qualified name may hold parentheses and anything else; the file
     * may hold a colon (the last one is the line's). */
    FRAG("g (x) (a.py:5)", "\"name\":\"g (x)\",\"args\":{\"file\":\"a.py\",\"line\":5}");
    FRAG("f (C:\\src\\a.py:3)", "\"name\":\"f\",\"args\":{\"file\":\"C:\\\\src\\\\a.py\",\"line\":3}");
    FRAG("f (.py:3)", "\"name\":\"f\",\"args\":{\"file\":\".py\",\"line\":3}");
    FRAG("f (<>:1)", "\"name\":\"f\",\"args\":{\"file\":\"<>\",\"line\":1}");
    FRAG("f (a.py:999999999)", "\"name\":\"f\",\"args\":{\"file\":\"a.py\",\"line\":999999999}");
    /* Escaped as every name is: quotes, controls, invalid UTF-8. */
    FRAG("q\"\x01\n (a b.py:2)", "\"name\":\"q\\\"\\u0001\\u000a\",\"args\":{\"file\":\"a b.py\",\"line\":2}");
    FRAG("\xff (\xc3\xa9.py:2)", "\"name\":\"\xef\xbf\xbd\",\"args\":{\"file\":\"\xc3\xa9.py\",\"line\":2}");
}

static void test_left_alone(void) {
    const char *keep[] = {"matmul_blk.0.attn_q", "builtins.sorted", "layer (blk.c:3)", "x (y.py:z)", "a.py:3",
                          "(a.py:1)", " (a.py:1)", "f(a.py:1)", "f (a.py:)", "f (a.py:1234567890)", "f (a.py:-1)",
                          "f (a.py:1) ", "f (a.py 1)", "f (a.py:1)x", "f (py:1)", "f (a.pyx:1)", "f (<a:1)",
                          "a.py:1 ()", "a.py:5 (g (x))", "a(b.py:1 (f)", "f (a(b.py:1)", "f (a.py:1))", ")", "",
                          "f (a.py:\xd9\xa1)"};
    for (size_t i = 0; i < sizeof keep / sizeof *keep; i++) frag_is(keep[i], strlen(keep[i]), NULL);
    /* Bytes after a NUL are part of the name: the length rules. */
    frag_is("f (a.py:1)\0x", 12, NULL);
}

static void test_split_parts(void) {
    struct pyname p;
    const char s[] = "bench.py:12 (fib)";
    REQUIRE(pyname_split(s, sizeof s - 1, &p));
    CHECK(p.kind == PYNAME_LINE && p.line == 12 && p.file_len == 8 && !memcmp(p.file, "bench.py", 8));
    CHECK(p.func_len == 3 && !memcmp(p.func, "fib", 3));
    CHECK(!pyname_split("fib", 3, &p) && p.kind == 0);
}

/* Long names: nothing written past what was allocated (ASan). */
static void test_long(void) {
    size_t n = 3000;
    char *s = malloc(n + 64);
    REQUIRE(s);
    memset(s, '"', n);
    memcpy(s + n, " (", 2);
    memset(s + n + 2, '\x01', 20);
    memcpy(s + n + 22, ".py:1)", 6);
    uint32_t len;
    char *f = pyname_json(s, n + 28, &len);
    CHECK(f && len == 8 + 2 * n + 10 + 8 + 6 * 20 + 3 + 9 + 1 + 1);
    free(f);
    /* The line form escapes its file twice. */
    memset(s, '\x01', n);
    memcpy(s + n, ".py:1 (f)", 9);
    f = pyname_json(s, n + 9, &len);
    CHECK(f && len == 8 + 6 * n + 5 + 22 + 1 + 2 + 8 + 6 * n + 3 + 9 + 1 + 1);
    free(f);
    free(s);
}

int main(void) {
    test_forms();
    test_left_alone();
    test_split_parts();
    test_long();
    CHECK_DONE();
}
