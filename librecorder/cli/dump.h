/*
 * dump.h -- writing a snapshot, shared by `dump` and `run`.
 */
#ifndef RECORDER_CLI_DUMP_H
#define RECORDER_CLI_DUMP_H

/* Load target and write it as Perfetto JSON to out ("-" = stdout); prints
 * a one-line summary or error; returns a rec_status. */
int cli_dump(const char *target, const char *out, double last_sec);

#endif
