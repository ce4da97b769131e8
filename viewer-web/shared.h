/*
 * shared.h -- how recorder-web's two threads share memory, in one place.
 *
 * - Read-side sections, grace periods and deferred frees are liburcu's
 *   (urcu-memb): web_read_lock/unlock, web_call_rcu, rcu_barrier.
 * - A published object is swapped in with a release store and read with
 *   an acquire load: what rcu_assign_pointer and rcu_dereference do, but
 *   spelled as C11 atomics, because liburcu 0.13 implements its barriers
 *   in inline assembly that ThreadSanitizer cannot see.
 * - Counters and flags are C11 atomics (relaxed unless they order
 *   something).
 * - Under ThreadSanitizer the grace period is annotated: the end of every
 *   read-side section releases, every call_rcu callback acquires, which
 *   is what a grace period guarantees.  Hand-offs through liburcu's
 *   wait-free queues are annotated the same way (web_handoff/web_taken).
 */
#ifndef WEB_SHARED_H
#define WEB_SHARED_H

#include <urcu.h>

#if defined(__SANITIZE_THREAD__)
#define WEB_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WEB_TSAN 1
#endif
#endif

#ifdef WEB_TSAN
#include <sanitizer/tsan_interface.h>
extern char web_grace_period;
#define web_tsan_release(p) __tsan_release((void *)(p))
#define web_tsan_acquire(p) __tsan_acquire((void *)(p))
#else
#define web_tsan_release(p) ((void)(p))
#define web_tsan_acquire(p) ((void)(p))
#endif

#define web_publish(slot, p) __atomic_store_n((slot), (p), __ATOMIC_RELEASE)
#define web_replace(slot, p) __atomic_exchange_n((slot), (p), __ATOMIC_ACQ_REL)
#define web_subscribe(slot) __atomic_load_n((slot), __ATOMIC_ACQUIRE)

#define web_load(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define web_store(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define web_add(p, v) ((void)__atomic_fetch_add((p), (v), __ATOMIC_RELAXED))
#define web_xchg(p, v) __atomic_exchange_n((p), (v), __ATOMIC_ACQ_REL)
#define web_or(p, v) ((void)__atomic_fetch_or((p), (v), __ATOMIC_RELAXED))

static inline void web_read_lock(void) { rcu_read_lock(); }

static inline void web_read_unlock(void) {
#ifdef WEB_TSAN
    web_tsan_release(&web_grace_period);
#endif
    rcu_read_unlock();
}

/* call_rcu, with what the caller wrote before it visible to the
 * callback (liburcu's queue of callbacks is invisible to TSan too). */
static inline void web_call_rcu(struct rcu_head *head, void (*fn)(struct rcu_head *)) {
    web_tsan_release(head);
    call_rcu(head, fn);
}

/* First thing in every callback given to web_call_rcu. */
static inline void web_after_grace(struct rcu_head *head) {
    web_tsan_acquire(head);
#ifdef WEB_TSAN
    web_tsan_acquire(&web_grace_period);
#endif
}

/* An object handed through a wait-free queue: before the enqueue, and
 * after the dequeue. */
#define web_handoff(p) web_tsan_release(p)
#define web_taken(p) web_tsan_acquire(p)

#endif
