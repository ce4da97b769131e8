/*
 * test_text.c -- text.c: names from the traced program fit their columns
 * exactly and cannot inject terminal control sequences.
 */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "text.h"

static char out[256];

/* text_elide among rows: exactly width columns, whatever it cuts. */
static const char *elide(const char *s, const char *const *rows, size_t n, int width, int utf8) {
    int used = text_elide(out, sizeof out, s, rows, n, width, 0, utf8);
    CHECK(used == width);
    CHECK(text_width(out, utf8) == width);
    return out;
}

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

    /* Names shown together lose what they share, not a fixed middle
     * (issue 20, item 2): the layer number, the only part that differs,
     * stays.  The old middle cut gave "matmul_…ffn_down" four times. */
    const char *rows[] = {"matmul_blk.3.ffn_down", "matmul_blk.11.ffn_down", "matmul_blk.3.ffn_up",
                          "matmul_blk.11.ffn_up", "softmax"};
    CHECK(!strcmp(elide(rows[0], rows, 5, 16, 1), "\xe2\x80\xa6" "_blk.3.ffn_down"));
    CHECK(!strcmp(elide(rows[1], rows, 5, 16, 1), "\xe2\x80\xa6" "blk.11.ffn_down"));
    CHECK(!strcmp(elide(rows[2], rows, 5, 16, 1), "matmul_\xe2\x80\xa6" "3.ffn_up"));
    CHECK(!strcmp(elide(rows[0], rows, 5, 15, 0), "~blk.3.ffn_down"));   /* not UTF-8: ~ for the ellipsis */
    /* Every pair of the four stays distinct at every width from 6 up. */
    for (int w = 6; w <= 22; w++) {
        char seen[4][256];
        for (int i = 0; i < 4; i++) {
            snprintf(seen[i], sizeof seen[i], "%s", elide(rows[i], rows, 5, w, 1));
            for (int j = 0; j < i; j++) CHECK(strcmp(seen[i], seen[j]) != 0);
        }
    }
    /* "blk.13" against "blk.11": cut before the whole number, not its last digit. */
    const char *num[] = {"matmul_blk.13.ffn_down", "matmul_blk.11.ffn_down"};
    CHECK(!strcmp(elide(num[0], num, 2, 12, 1), "\xe2\x80\xa6" "13.ffn_down"));
    /* A short head is kept when it fits in half the width, with what differs after it. */
    const char *att[] = {"matmul_blk.10.attention.ffn_up", "matmul_blk.10.attention.ffn_down"};
    CHECK(!strcmp(elide(att[0], att, 2, 23, 1), "matmul_\xe2\x80\xa6" "ttention.ffn_up"));
    CHECK(!strcmp(elide(att[1], att, 2, 23, 1), "matmul_\xe2\x80\xa6" "ention.ffn_down"));
    /* What differs is itself too long: where it starts, and its end. */
    const char *lng[] = {"x.aaaaaaaaaaaaaaaa_end", "x.bbbbbbbbbbbbbbbb_end"};
    CHECK(!strcmp(elide(lng[0], lng, 2, 10, 1), "\xe2\x80\xa6" "aaaa\xe2\x80\xa6" "_end"));
    /* Nothing shared (or alone, or only with itself): the middle cut. */
    CHECK(!strcmp(elide("matmul_blk.10.ffn_up", NULL, 0, 17, 1), "matmul_b\xe2\x80\xa6" "0.ffn_up"));
    const char *self[] = {"matmul_blk.10.ffn_up", "matmul_blk.10.ffn_up"};
    CHECK(!strcmp(elide(self[0], self, 2, 17, 1), "matmul_b\xe2\x80\xa6" "0.ffn_up"));
    /* Short enough: as it is, padded; FIT_NO_PAD honoured. */
    CHECK(!strcmp(elide("softmax", rows, 5, 9, 1), "softmax  "));
    CHECK(text_elide(out, sizeof out, "softmax", rows, 5, 9, FIT_NO_PAD, 1) == 7 && !strcmp(out, "softmax"));
    /* Hostile bytes are drawn as '?' in every part; a tiny buffer holds. */
    const char *esc[] = {"\x1b[2J_abcdefgh.1\x1b", "\x1b[2J_abcdefgh.2\x1b"};
    elide(esc[0], esc, 2, 8, 1);
    CHECK(!strchr(out, 0x1b));
    char tiny[5];
    text_elide(tiny, sizeof tiny, rows[1], rows, 5, 16, 0, 1);
    CHECK(strlen(tiny) < sizeof tiny);
    CHECK(text_elide(tiny, sizeof tiny, rows[1], rows, 5, 0, 0, 1) == 0 && tiny[0] == 0);

    /* Wrapping a long name: whole characters that fit. */
    CHECK_EQ_U(text_take("abcdef", 4, 1), 4);
    CHECK_EQ_U(text_take("abc", 4, 1), 3);
    CHECK_EQ_U(text_take("\xe5\x90\x8d\xe5\x89\x8d", 3, 1), 3);   /* one wide character of two */
    CHECK_EQ_U(text_take("a", 0, 1), 0);

    CHECK(text_contains("matmul_blk.3", "MATMUL"));
    CHECK(text_contains("matmul_blk.3", ""));
    CHECK(!text_contains("softmax", "matmul"));
    CHECK(text_contains("ab", "b"));
    CHECK(!text_contains("a", "ab"));
    CHECK_DONE();
}
