/*
 * tour.c -- one of every kind of event recorder has, on two threads, for
 * docs/perfetto.md: nested slices, a slice with a run-time name, an
 * instant with a message, a counter, a flow from one thread to the other,
 * thread names, and a slice still open when the program ends.
 *
 *   RECORDER_KEEP=1 ./tour          # prints its segment
 *   recorder dump PID -o tour.json  # then open tour.json in ui.perfetto.dev
 *
 * With RECORDER_RING_KB=4 its "burst" overflows the main thread's ring, so
 * the dump also shows what loss looks like.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <pthread.h>
#include <stdio.h>
#include <time.h>

static void pause_us(long us) {
    struct timespec d = {0, us * 1000};
    nanosleep(&d, NULL);
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int handed_over;

static void *consumer(void *arg) {
    (void)arg;
    REC_THREAD_NAME("consumer");
    pthread_mutex_lock(&mu);
    while (!handed_over) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    REC_SCOPE("consume");
    REC_FLOW_END(42);          /* the arrow from "produce" ends here */
    pause_us(300);
    return NULL;
}

int main(void) {
    if (rec_init() != 0) {
        fprintf(stderr, "tour: recording is off\n");
        return 1;
    }
    REC_THREAD_NAME("producer");
    printf("recording to %s\n", rec_segment_path());
    pthread_t t;
    pthread_create(&t, NULL, consumer, NULL);
    {
        REC_SCOPE("outer");
        pause_us(200);
        {
            REC_SCOPE("inner");
            pause_us(200);
        }
        char name[32];
        snprintf(name, sizeof name, "layer.%d", 7);
        REC_SCOPE_DYN(name);
        REC_INSTANT("checkpoint", "a message of up to 45 bytes");
        REC_COUNTER("queue_depth", 3);
        pause_us(200);
        REC_COUNTER("queue_depth", 1);
    }
    {
        REC_SCOPE("produce");
        REC_FLOW_BEGIN(42);    /* an arrow to the consumer's slice */
        pthread_mutex_lock(&mu);
        handed_over = 1;
        pthread_cond_signal(&cv);
        pthread_mutex_unlock(&mu);
        pause_us(100);
    }
    pthread_join(t, NULL);
    {
        REC_SCOPE("burst");    /* 2,000 tiny scopes: with a 4 KiB ring most are overwritten */
        for (int i = 0; i < 2000; i++) {
            REC_SCOPE("tiny");
        }
    }
    REC_BEGIN("still_open");   /* never ended: open at the snapshot */
    pause_us(100);
    return 0;
}
