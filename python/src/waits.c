/*
 * waits.c -- the interpreter's known blocking calls, recorded as wait
 * scopes (pyrec.h, PYREC_ID_WAIT): a thread blocked in Lock.acquire,
 * Queue.get, time.sleep, select or Event.wait is waiting, and the
 * analysis must not count it as busy (docs/analysis.md, "Wait scopes").
 *
 * Two tables, matched once per code object or builtin (names.c caches the
 * verdict with the name): the standard library's Python functions that
 * block, by module and qualified name, and the builtins and extension
 * methods under them, by the name names.c gives them.  A wait scope makes
 * what runs under it waiting too, so Event.wait covers the lock it
 * acquires; the builtins matter where a program calls them itself (with
 * the profile or monitoring hook, which record builtins; the default).
 * Only functions whose whole purpose is to block are here: Queue.put or
 * Semaphore.acquire return at once unless full or taken, and when they
 * block they do it in Condition.wait, which is here.
 */
#include <string.h>

#include "pyrec.h"

struct py_wait {
    const char *module, *qualname;
};

static const struct py_wait py_waits[] = {
    {"threading", "Condition.wait"},
    {"threading", "Condition.wait_for"},
    {"threading", "Event.wait"},
    {"threading", "Barrier.wait"},
    {"threading", "Thread.join"},
    {"queue", "Queue.get"},
    {"queue", "Queue.join"},
    {"selectors", "_PollLikeSelector.select"},
    {"selectors", "EpollSelector.select"},
    {"selectors", "SelectSelector.select"},
    {"selectors", "KqueueSelector.select"},
    {"subprocess", "Popen.wait"},
    {"subprocess", "Popen.communicate"},
    {"multiprocessing.connection", "_ConnectionBase.recv"},
    {"multiprocessing.connection", "_ConnectionBase.recv_bytes"},
    {"multiprocessing.connection", "_ConnectionBase.poll"},
    {"multiprocessing.connection", "wait"},
    {"multiprocessing.pool", "ApplyResult.wait"},
    {"multiprocessing.pool", "ApplyResult.get"},
    {"multiprocessing.pool", "Pool.join"},
    {"multiprocessing.process", "BaseProcess.join"},
    {"concurrent.futures._base", "Future.result"},
    {"concurrent.futures._base", "Future.exception"},
    {"concurrent.futures._base", "wait"},
    {"socket", "socket.accept"},
};

static const char *const native_waits[] = {
    "time.sleep",
    "select.select",
    "select.poll.poll",
    "select.epoll.poll",
    "_thread.lock.acquire",
    "_thread.lock.acquire_lock",
    "_thread.lock.__enter__",
    "_thread.RLock.acquire",
    "_thread.RLock.__enter__",
    "_queue.SimpleQueue.get",
    "_socket.socket.recv",
    "_socket.socket.recv_into",
    "_socket.socket.recvfrom",
    "_socket.socket.recvfrom_into",
    "_socket.socket._accept",
    "_socket.socket.connect",
    "posix.waitpid",
    "posix.wait",
    "signal.pause",
    "signal.sigwait",
    "builtins.input",
};

int pyrec_is_wait_py(const char *module, const char *qualname) {
    for (size_t i = 0; i < sizeof py_waits / sizeof py_waits[0]; i++)
        if (!strcmp(module, py_waits[i].module) && !strcmp(qualname, py_waits[i].qualname)) return 1;
    return 0;
}

int pyrec_is_wait_native(const char *name) {
    for (size_t i = 0; i < sizeof native_waits / sizeof native_waits[0]; i++)
        if (!strcmp(name, native_waits[i])) return 1;
    return 0;
}
