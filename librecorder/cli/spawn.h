/*
 * spawn.h -- starting the command of `recorder run` and `recorder capture
 * -- CMD`, and turning its wait status into ours.
 */
#ifndef RECORDER_CLI_SPAWN_H
#define RECORDER_CLI_SPAWN_H

#include <sys/types.h>

/* A value for cli_spawn's env: "pid:" and the child's own pid. */
extern const char cli_spawn_pid[];

/* Fork and exec cmd (PATH searched) with env[] = {"NAME", "VALUE", ...,
 * NULL} set in its environment.  Returns 0 with *pid set once the exec
 * has succeeded, or, with the reason printed, 127 (not found) or 126
 * (could not be run): the exit status a shell would give. */
int cli_spawn(char **cmd, const char *const *env, pid_t *pid);

/* While we wait for pid: the terminal's Ctrl-C (SIGINT, SIGQUIT) reaches
 * it directly and we ignore it; SIGTERM and SIGHUP sent to us are passed
 * on to it. */
void cli_forward_signals(pid_t pid);

/* A wait status as an exit status: the code, or 128 + the signal. */
int cli_exit_status(int wait_status);

#endif
