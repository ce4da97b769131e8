/*
 * guard.c -- surviving a segment that shrinks under its readers.
 *
 * A segment is a file its owner can truncate at any moment.  A page of a
 * mapping past the new end of file raises SIGBUS on the next access, and
 * a reader that does not expect it dies: a hostile or buggy program could
 * kill every viewer watching it.  So every access to a mapping runs
 * inside a guard (REC__GUARD in internal.h): the handler below jumps back
 * to the guard's sigsetjmp when the fault hit an armed thread inside a
 * mapping of the guarded segment, and the segment is marked truncated;
 * every later call on it returns nothing.  A fault anywhere else is not
 * ours: it goes to the handler that was there before, or kills the
 * process as it would have.
 *
 * Cost: sigsetjmp without the signal mask (no syscall) and two
 * thread-local stores per guarded call; a read copies thousands of
 * entries per call.  The handler is installed with SA_NODEFER, so the
 * jump out of it leaves SIGBUS unblocked without restoring a mask.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "internal.h"

__thread struct rec__guard *rec__guard_cur;

static struct sigaction prev_action;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int inside(const struct rec_seg *s, const void *addr) {
    const unsigned char *a = addr;
    if (a >= s->base && a < s->base + s->size) return 1;
    const unsigned char *c = (const unsigned char *)s->cons;
    return s->cons_map_size && a >= c && a < c + s->cons_map_size;
}

static void on_sigbus(int sig, siginfo_t *si, void *uc) {
    struct rec__guard *g = rec__guard_cur;
    if (g && g->seg && inside(g->seg, si->si_addr)) {
        rec__guard_cur = NULL;
        siglongjmp(g->jb, 1);
    }
    /* Not a segment's page: what would have happened without us. */
    if ((prev_action.sa_flags & SA_SIGINFO) && prev_action.sa_sigaction) {
        prev_action.sa_sigaction(sig, si, uc);
        return;
    }
    if (prev_action.sa_handler != SIG_DFL && prev_action.sa_handler != SIG_IGN) {
        prev_action.sa_handler(sig);
        return;
    }
    /* Default action: returning re-runs the faulting access, which now
     * kills the process with SIGBUS as before. */
    signal(sig, SIG_DFL);
}

static void install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &prev_action);
}

void rec__guard_install(void) { pthread_once(&once, install); }

void rec__guard_fault(struct rec_seg *s) {
    s->truncated = 1;
}
