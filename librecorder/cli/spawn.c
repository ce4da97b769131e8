/*
 * spawn.c -- fork and exec a command, and know whether the exec worked.
 *
 * The child reports a failed exec's errno through a close-on-exec pipe:
 * the parent reads either that errno or end-of-file (the exec closed the
 * pipe), so "cannot run" is told apart from a program that runs and
 * fails.
 */
#define _GNU_SOURCE
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

const char cli_spawn_pid[] = "(pid)";

int cli_spawn(char **cmd, const char *const *env, pid_t *pid) {
    int errpipe[2];
    if (pipe2(errpipe, O_CLOEXEC) != 0) return cli_error(REC_ERR_IO, "pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t p = fork();
    if (p < 0) {
        int e = errno;
        close(errpipe[0]);
        close(errpipe[1]);
        return cli_error(REC_ERR_IO, "fork: %s", strerror(e));
    }
    if (p == 0) {
        close(errpipe[0]);
        char own[32];
        snprintf(own, sizeof own, "pid:%d", (int)getpid());
        for (int i = 0; env && env[i] && env[i + 1]; i += 2)
            setenv(env[i], env[i + 1] == cli_spawn_pid ? own : env[i + 1], 1);
        execvp(cmd[0], cmd);
        int e = errno;
        if (write(errpipe[1], &e, sizeof e) < 0) _exit(127);
        _exit(e == ENOENT ? 127 : 126);
    }
    close(errpipe[1]);
    int exec_errno = 0;
    ssize_t got;
    while ((got = read(errpipe[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {}
    close(errpipe[0]);
    if (got == (ssize_t)sizeof exec_errno) {
        int st;
        waitpid(p, &st, 0);
        return cli_error(exec_errno == ENOENT ? 127 : 126, "cannot run %s: %s", cmd[0], strerror(exec_errno));
    }
    *pid = p;
    return 0;
}

static volatile pid_t forward_to;

static void on_forward(int sig) {
    if (forward_to > 0) kill(forward_to, sig);
}

void cli_forward_signals(pid_t pid) {
    forward_to = pid;
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_forward;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

int cli_exit_status(int st) {
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return 1;
}
