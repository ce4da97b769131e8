/*
 * recorder/machine.h -- which machine (and which boot of it) a trace was
 * recorded on, so that traces gathered from many nodes stay apart when
 * Perfetto's trace processor merges them (docs/scale.md, "Machines").
 *
 * The identity is a hash of /etc/machine-id and the kernel's boot id: a
 * reboot restarts CLOCK_MONOTONIC and CLOCK_BOOTTIME, so two boots of one
 * machine are two clock domains, kept apart like two machines.  It is
 * written as TracePacket.machine_id (field 98) on every packet of a
 * Perfetto protobuf trace, and kept in a capture file's SOURCE record
 * (docs/capture-format.md) so that a capture converted elsewhere still
 * names the machine it was recorded on.
 */
#ifndef RECORDER_MACHINE_H
#define RECORDER_MACHINE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where an identity came from. */
enum rec_machine_from {
    REC_MACHINE_UNKNOWN = 0,  /* not known (a capture written before identities were recorded) */
    REC_MACHINE_IDS = 1,      /* /etc/machine-id (or /var/lib/dbus/machine-id) and the boot id */
    REC_MACHINE_HOSTNAME = 2, /* no machine-id file: the host name and the boot id */
    REC_MACHINE_TEST = 3      /* RECORDER_MACHINE_ID, for tests: one machine posing as several */
};

struct rec_machine {
    uint32_t id;              /* TracePacket.machine_id: never 0 when known; 0 = unknown */
    uint32_t from;            /* enum rec_machine_from */
    uint64_t hash;            /* the whole hash the id is folded from */
};

/* This machine's identity (never fails: a missing or unreadable file falls
 * back as enum rec_machine_from says).  RECORDER_MACHINE_ID, when set and
 * not empty, replaces the files: its text is hashed instead (for tests
 * only: two runs with different values pose as two machines). */
void rec_machine_this(struct rec_machine *m);

#ifdef __cplusplus
}
#endif

#endif
