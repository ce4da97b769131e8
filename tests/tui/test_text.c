/*
 * test_text.c -- text.c: names from the traced program fit their columns
 * exactly and cannot inject terminal control sequences.
 */
#include <locale.h>
#include <string.h>

#include "check.h"
#include "text.h"

static char out[256];

static const char *fit(const char *s, int width, unsigned flags, int utf8) {
    int used = text_fit(out, sizeof out, s, width, flags, utf8);
    CHECK(used == width || (flags & FIT_NO_PAD));
    return out;
}

int main(void) {
    REQUIRE(setlocale(LC_CTYPE, "C.UTF-8") != NULL);

    /* Padding and alignment. */
    CHECK(!strcmp(fit("abc", 6, FIT_LEFT, 1), "abc   "));
    CHECK(!strcmp(fit("abc", 6, FIT_RIGHT, 1), "   abc"));
    CHECK(!strcmp(fit("abc", 3, FIT_LEFT, 1), "abc"));
    CHECK(!strcmp(fit("abc", 6, FIT_NO_PAD, 1), "abc"));
    CHECK(!strcmp(fit("abc", 0, FIT_LEFT, 1), ""));

    /* Too long, cut in the middle: names that differ at the end stay
     * distinct at 80x24 (issue 12's example); the end gets the odd column. */
    CHECK(!strcmp(fit("matmul_blk.10.ffn_up", 17, FIT_MIDDLE, 1), "matmul_b\xe2\x80\xa6" "0.ffn_up"));
    CHECK(!strcmp(fit("matmul_blk.10.ffn_down", 17, FIT_MIDDLE, 1), "matmul_b\xe2\x80\xa6" "ffn_down"));
    CHECK(!strcmp(fit("matmul_blk.10.ffn_up", 8, FIT_MIDDLE, 1), "mat\xe2\x80\xa6" "n_up"));
    CHECK(!strcmp(fit("abcdefghij", 7, FIT_MIDDLE, 0), "abc~hij"));
    CHECK(!strcmp(fit("short", 8, FIT_MIDDLE, 1), "short   "));
    CHECK(!strcmp(fit("abcdefghij", 10, FIT_MIDDLE, 1), "abcdefghij"));
    /* Wide characters: never more columns than asked, padded when a wide
     * one does not fit; controls are still '?'. */
    fit("\xe5\x90\x8d\xe5\x89\x8d\xe5\x90\x8d\xe5\x89\x8d\xe5\x90\x8d", 6, FIT_MIDDLE, 1);
    CHECK(text_width(out, 1) == 6);
    CHECK(!strcmp(fit("\x1b[2Jabcdefgh\x1b", 7, FIT_MIDDLE, 1), "?[2\xe2\x80\xa6" "gh?"));

    /* Too long: cut with an ellipsis at the end, or at the start. */
    CHECK(!strcmp(fit("matmul_blk.3", 8, FIT_LEFT, 1), "matmul_\xe2\x80\xa6"));
    CHECK(!strcmp(fit("matmul_blk.3", 8, FIT_LEFT, 0), "matmul_~"));
    CHECK(!strcmp(fit("a > b > c > d", 6, FIT_KEEP_END, 1), "\xe2\x80\xa6" "c > d"));
    CHECK(!strcmp(fit("abcdefgh", 4, FIT_KEEP_END, 1), "\xe2\x80\xa6" "fgh"));
    CHECK(!strcmp(fit("abcdefgh", 1, FIT_LEFT, 1), "\xe2\x80\xa6"));

    /* Wide characters count two columns; one that does not fit leaves a pad. */
    CHECK_EQ_U(text_width("\xe6\xbc\xa2\xe5\xad\x97", 1), 4);    /* two CJK */
    CHECK(!strcmp(fit("\xe6\xbc\xa2\xe5\xad\x97x", 4, FIT_LEFT, 1), "\xe6\xbc\xa2\xe2\x80\xa6 "));
    CHECK(!strcmp(fit("\xe6\xbc\xa2\xe5\xad\x97x", 3, FIT_LEFT, 1), "\xe6\xbc\xa2\xe2\x80\xa6"));
    CHECK_EQ_U(text_width(out, 1), 3);

    /* Control bytes, escapes and invalid UTF-8 become '?'. */
    CHECK(!strcmp(fit("a\x1b[2Jb", 6, FIT_LEFT, 1), "a?[2Jb"));
    CHECK(!strcmp(fit("x\xff\xfey", 4, FIT_LEFT, 1), "x??y"));
    CHECK(!strcmp(fit("\xc0\xaf", 2, FIT_LEFT, 1), "??"));        /* overlong '/' */
    CHECK(!strcmp(fit("\xed\xa0\x80", 3, FIT_LEFT, 1), "???"));   /* surrogate */
    CHECK(!strcmp(fit("\xc2\x9b" "1m", 3, FIT_LEFT, 1), "?1m"));  /* C1 CSI */
    /* Non-ASCII on a terminal that is not UTF-8. */
    CHECK(!strcmp(fit("caf\xc3\xa9", 4, FIT_LEFT, 0), "caf?"));
    CHECK(!strcmp(fit("caf\xc3\xa9", 4, FIT_LEFT, 1), "caf\xc3\xa9"));

    /* A small buffer is never overrun and stays terminated. */
    char small[5];
    text_fit(small, sizeof small, "abcdefgh", 8, FIT_LEFT, 1);
    CHECK(strlen(small) < sizeof small);

    /* utf8 round trip. */
    uint32_t cp;
    char b[8];
    size_t k = utf8_put(b, sizeof b, 0x1f600);
    CHECK_EQ_U(k, 4);
    CHECK_EQ_U(utf8_next(b, k, &cp), 4);
    CHECK_EQ_U(cp, 0x1f600);
    CHECK_EQ_U(utf8_next("\xe2\x82", 2, &cp), 1);               /* truncated */
    CHECK_EQ_U(cp, 0xfffd);

    CHECK(text_contains("matmul_blk.3", "MATMUL"));
    CHECK(text_contains("matmul_blk.3", ""));
    CHECK(!text_contains("softmax", "matmul"));
    CHECK(text_contains("ab", "b"));
    CHECK(!text_contains("a", "ab"));
    CHECK_DONE();
}
