/*
 * spawn.h -- the core tests' process helpers: run a program (usually the
 * test itself, in a "child" mode) with its own environment and pipes, read
 * what it says, and wait for it.
 *
 * The writer reads its configuration once per process, so every test of a
 * configuration runs in a fresh child.  The child's environment is the
 * parent's minus every RECORDER_* variable, plus the ones the test gives:
 * a developer's own RECORDER_* settings never leak into a test.
 */
#ifndef RECORDER_TEST_SPAWN_H
#define RECORDER_TEST_SPAWN_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct child {
    pid_t pid;
    int in;                   /* its stdin, or -1 */
    int out;                  /* its stdout */
    int err;                  /* its stderr, or -1 if shared with ours */
};

/* Start exe with argv (argv[0] included, NULL-terminated) and env additions
 * ("NAME=value", NULL-terminated, may be NULL).  want_in: give it a pipe as
 * stdin; want_err: capture its stderr.  Returns 0 or -1. */
static inline int child_spawn(struct child *c, const char *exe, char *const argv[], const char *const env[],
                              int want_in, int want_err) {
    size_t n_env = 0, n_add = 0;
    while (environ && environ[n_env]) n_env++;
    while (env && env[n_add]) n_add++;
    /* Built before fork: the child of a threaded process may only exec. */
    char **envp = (char **)calloc(n_env + n_add + 1, sizeof *envp);
    if (!envp) return -1;
    size_t k = 0;
    for (size_t i = 0; i < n_env; i++)
        if (strncmp(environ[i], "RECORDER", 8) != 0) envp[k++] = environ[i];
    for (size_t i = 0; i < n_add; i++) envp[k++] = (char *)env[i];
    envp[k] = NULL;
    int pin[2] = {-1, -1}, pout[2], perr[2] = {-1, -1};
    if ((want_in && pipe2(pin, O_CLOEXEC) != 0) || pipe2(pout, O_CLOEXEC) != 0 ||
        (want_err && pipe2(perr, O_CLOEXEC) != 0)) {
        free(envp);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        free(envp);
        return -1;
    }
    if (pid == 0) {
        if (want_in) dup2(pin[0], 0);
        dup2(pout[1], 1);
        if (want_err) dup2(perr[1], 2);
        execve(exe, argv, envp);
        _exit(127);
    }
    free(envp);
    c->pid = pid;
    c->in = -1;
    c->err = -1;
    if (want_in) {
        close(pin[0]);
        c->in = pin[1];
    }
    close(pout[1]);
    c->out = pout[0];
    if (want_err) {
        close(perr[1]);
        c->err = perr[0];
    }
    return 0;
}

/* Everything until EOF, NUL-terminated (malloc'd; never NULL). */
static inline char *fd_read_all(int fd) {
    size_t cap = 4096, n = 0;
    char *buf = (char *)malloc(cap);
    if (!buf) abort();
    for (;;) {
        if (n + 1 >= cap) {
            cap *= 2;
            buf = (char *)realloc(buf, cap);
            if (!buf) abort();
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        n += (size_t)r;
    }
    buf[n] = 0;
    return buf;
}

/* One line (without its newline) read a byte at a time, so nothing after it
 * is consumed; returns 0, or -1 at EOF before a newline. */
static inline int fd_read_line(int fd, char *buf, size_t cap) {
    size_t n = 0;
    for (;;) {
        char ch;
        ssize_t r = read(fd, &ch, 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            buf[n] = 0;
            return -1;
        }
        if (ch == '\n') break;
        if (n + 1 < cap) buf[n++] = ch;
    }
    buf[n] = 0;
    return 0;
}

/* Exit status, or 128 + signal number. */
static inline int child_wait(struct child *c) {
    int st;
    while (waitpid(c->pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    if (c->in >= 0) close(c->in);
    close(c->out);
    if (c->err >= 0) close(c->err);
    c->in = c->out = c->err = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Run a child to completion; its stdout and stderr are returned (malloc'd). */
static inline int child_run(const char *exe, char *const argv[], const char *const env[], char **out, char **err) {
    struct child c;
    if (out) *out = NULL;
    if (err) *err = NULL;
    if (child_spawn(&c, exe, argv, env, 0, 1) != 0) return -1;
    /* stderr is small in these tests; read stdout first, then stderr. */
    char *o = fd_read_all(c.out);
    char *e = fd_read_all(c.err);
    int st = child_wait(&c);
    if (out) *out = o;
    else free(o);
    if (err) *err = e;
    else free(e);
    return st;
}

static inline int count_lines(const char *s) {
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* Open file descriptors of this process. */
static inline int count_fds(void) {
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n - 1;  /* the directory's own */
}

static inline int path_exists(const char *p) {
    struct stat st;
    return stat(p, &st) == 0;
}

/* /dev/shm/recorder.<pid> */
static inline void seg_path_of(int pid, char *buf, size_t cap) {
    snprintf(buf, cap, "/dev/shm/recorder.%d", pid);
}

#endif
