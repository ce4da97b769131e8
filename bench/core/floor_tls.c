/*
 * floor_tls.c -- the floor's thread-local ring state, defined apart from
 * the loop (variant_floor.c) the way recorder.h's rec__t is defined in the
 * one implementation file, so both are reached through the same
 * initial-exec sequence: a GOT load of the offset, then %fs-relative
 * accesses.
 */
#include "floor_tls.h"

__thread struct floor_tls floor_t __attribute__((tls_model("initial-exec")));
