/*
 * imports.c -- each top-level import as one scope.
 *
 * `import torch` runs hundreds of thousands of Python calls (511k of a
 * 538k-slice trace in one measurement), and the top rows of a report
 * become importlib's _find_and_load and _call_with_frames_removed.  By
 * default a thread's outermost import is recorded as one scope named
 * "import torch", with its whole time, and the calls inside it are
 * counted, not recorded: an instant "calls hidden" inside the scope says
 * how many.  An import inside an import is part of the outer one.
 * `--imports` (configure(imports=True)) records them in full.
 *
 * Where an import begins: importlib._bootstrap._find_and_load(name,
 * import_), which every `import` statement and importlib.import_module
 * reaches; its first argument is the module's name.
 */
#include <stdio.h>
#include <string.h>

#include "pyrec.h"

int pyrec_is_import_root(const char *file, const char *qualname) {
    return !strcmp(qualname, "_find_and_load") &&
           (!strcmp(file, "<frozen importlib._bootstrap>") || strstr(file, "importlib/_bootstrap.py") != NULL);
}

uint32_t pyrec_import_id(PyObject *name) {
    const char *s = name && PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
    if (!s) PyErr_Clear();
    char buf[300];
    snprintf(buf, sizeof buf, "import %s", s ? s : "(a module)");
    return rec__intern_dyn(buf);
}

void pyrec_import_end(struct pyrec_thread *t) {
    char msg[48];
    snprintf(msg, sizeof msg, "%llu calls", (unsigned long long)t->imp_calls);
    REC_INSTANT("calls hidden", msg);
    t->imp = 0;
    t->imp_calls = 0;
}

/* A thread's outermost import begins at key (the shadow stack's hooks):
 * its scope is pushed, and what runs under it is counted, not recorded. */
void pyrec_import_push(struct pyrec_thread *t, const void *key, PyObject *name) {
    uint32_t id = pyrec_import_id(name);
    if (id) pyrec_name_thread(t);
    uint32_t n0 = t->n;
    pyrec_push(t, key, id, PYREC_ENT_PY);
    if (t->n > n0) {
        t->imp = t->n;
        t->imp_calls = 0;
    }
}

/* The module name of a _find_and_load frame: its first argument.  A new
 * reference, or NULL (no error set). */
PyObject *pyrec_import_name_of(PyFrameObject *frame) {
    if (!frame) return NULL;
    PyObject *loc = PyFrame_GetLocals(frame);
    PyObject *name = loc ? PyMapping_GetItemString(loc, "name") : NULL;
    Py_XDECREF(loc);
    if (!name) PyErr_Clear();
    return name;
}
