/*
 * names.c -- what a Python function, a line or a builtin is called in the
 * trace, decided once and cached.
 *
 *   a Python function   "Attention.forward (model.py:42)"   qualname (file:first line)
 *   a line              "model.py:57 (Attention.forward)"
 *   a builtin           "builtins.sorted", "numpy.zeros", "builtins.list.append"
 *
 * The file is shown relative to the sys.path entry that holds it (so it
 * reads like the module: numpy/core/multiarray.py), else as it is.  The
 * runner turns "(file:line)" into the args of the exported JSON.
 *
 * A code object's record lives in its extra slot (PEP 523's co_extra) and
 * dies with it; builtins are cached by (PyMethodDef, type), which outlive
 * their calls.  Everything here runs in C: no Python code, so no hook can
 * re-enter while a name is made.  The filters (module or file substrings)
 * are applied here too, so a filtered function costs one cached verdict.
 */
#include "pyrec.h"

#include <string.h>
#include <unistd.h>

Py_ssize_t pyrec_extra_index = -1;

static void code_info_free(void *p) {
    struct pyrec_code *ci = (struct pyrec_code *)p;
    if (!ci) return;
    free(ci->line_ids);
    free(ci->site_short);
    free(ci);
}

int pyrec_names_init(void) {
    pyrec_extra_index = PYREC_REQUEST_CODE_EXTRA(code_info_free);
    if (pyrec_extra_index < 0) {
        PyErr_SetString(PyExc_RuntimeError, "recorder: no code extra slot left (too many tools use them)");
        return -1;
    }
    return 0;
}

/* ---- filters ------------------------------------------------------------ */

/* configure() (module.c) refuses more than PYREC_MAX_FILTERS items, so
 * every item fits here; none is dropped. */
static struct {
    unsigned gen;
    int n_in, n_out;
    char *in[PYREC_MAX_FILTERS], *out[PYREC_MAX_FILTERS];
} flt = {~0u, 0, 0, {0}, {0}};

static int load_list(PyObject *tuple, char **dst) {
    int n = 0;
    if (!tuple) return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tuple) && n < PYREC_MAX_FILTERS; i++) {
        const char *s = PyUnicode_AsUTF8(PyTuple_GET_ITEM(tuple, i));
        if (!s) {
            PyErr_Clear();
            continue;
        }
        if (*s && (dst[n] = strdup(s)) != NULL) n++;
    }
    return n;
}

static void filters_refresh(void) {
    if (flt.gen == pyrec_cfg.gen) return;
    for (int i = 0; i < flt.n_in; i++) free(flt.in[i]);
    for (int i = 0; i < flt.n_out; i++) free(flt.out[i]);
    flt.n_in = load_list(pyrec_cfg.filter, flt.in);
    flt.n_out = load_list(pyrec_cfg.filter_out, flt.out);
    flt.gen = pyrec_cfg.gen;
}

/* Kept if some --filter item is in the module or the file (or there is no
 * --filter), and no --filter-out item is in either. */
static int kept(const char *module, const char *file) {
    filters_refresh();
    int keep = flt.n_in == 0;
    for (int i = 0; !keep && i < flt.n_in; i++)
        keep = strstr(module, flt.in[i]) != NULL || (file && strstr(file, flt.in[i]) != NULL);
    for (int i = 0; keep && i < flt.n_out; i++)
        keep = strstr(module, flt.out[i]) == NULL && !(file && strstr(file, flt.out[i]) != NULL);
    return keep;
}

/* ---- files -------------------------------------------------------------- */

/* The part of file after the longest sys.path entry holding it (the cwd
 * for an empty entry), or file itself; NULL-free. */
static const char *short_file(const char *file) {
    if (file[0] != '/') return file;
    PyObject *path = PySys_GetObject("path");  /* borrowed */
    size_t best = 0, flen = strlen(file);
    char cwd[4096];
    if (path && PyList_Check(path)) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(path); i++) {
            PyObject *e = PyList_GET_ITEM(path, i);
            if (!PyUnicode_Check(e)) continue;
            Py_ssize_t n;
            const char *s = PyUnicode_AsUTF8AndSize(e, &n);
            if (!s) {
                PyErr_Clear();
                continue;
            }
            if (n == 0) {
                if (!getcwd(cwd, sizeof cwd)) continue;
                s = cwd;
                n = (Py_ssize_t)strlen(cwd);
            }
            while (n > 1 && s[n - 1] == '/') n--;
            if (s[0] != '/' || (size_t)n + 1 >= flen || (size_t)n <= best) continue;
            if (memcmp(file, s, (size_t)n) == 0 && file[n] == '/') best = (size_t)n;
        }
    }
    return best ? file + best + 1 : file;
}

/* "numpy/core/multiarray.py" -> "numpy.core.multiarray"; "pkg/__init__.py" -> "pkg". */
static void module_of(const char *shortf, char *out, size_t cap) {
    if (shortf[0] == '<' || shortf[0] == '/') {
        const char *b = strrchr(shortf, '/');
        shortf = b ? b + 1 : shortf;
    }
    size_t n = strlen(shortf);
    if (n >= cap) n = cap - 1;
    memcpy(out, shortf, n);
    out[n] = 0;
    char *dot = strrchr(out, '.');
    if (dot && (!strcmp(dot, ".py") || !strcmp(dot, ".pyw"))) *dot = 0;
    size_t m = strlen(out);
    if (m >= 9 && !strcmp(out + m - 9, "/__init__")) out[m - 9] = 0;
    for (char *p = out; *p; p++)
        if (*p == '/') *p = '.';
}

static const char *utf8_or(PyObject *s, const char *dflt) {
    const char *u = s && PyUnicode_Check(s) ? PyUnicode_AsUTF8(s) : NULL;
    if (!u) {
        PyErr_Clear();
        return dflt;
    }
    return u;
}

static int is_own_file(const char *file) {
    const char *own = utf8_or(pyrec_cfg.own_dir, NULL);
    size_t n = own ? strlen(own) : 0;
    return n && strncmp(file, own, n) == 0 && file[n] == '/';
}

/* ---- code objects --------------------------------------------------------- */

static uint32_t intern_buf(const char *name) {
    uint32_t id = rec__intern_dyn(name);
    return id;
}

/* Made on first sight of a code object, remade when the configuration
 * changed (filters).  On failure returns NULL with no Python error set:
 * the code is then just not recorded. */
struct pyrec_code *pyrec_code_slow(PyObject *code, struct pyrec_code *ci) {
    PyCodeObject *co = (PyCodeObject *)code;
    if (!ci) {
        ci = (struct pyrec_code *)calloc(1, sizeof *ci);
        if (!ci) return NULL;
        if (PYREC_CODE_SET_EXTRA(code, pyrec_extra_index, ci) != 0) {
            PyErr_Clear();
            free(ci);
            return NULL;
        }
        ci->first_line = co->co_firstlineno;
        const char *file = utf8_or(co->co_filename, "?");
        char name[1100];
        snprintf(name, sizeof name, "%s (%s:%d)", utf8_or(co->co_qualname, "?"), short_file(file), ci->first_line);
        ci->own = (uint8_t)is_own_file(file);
        ci->resumable = (co->co_flags & (CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR)) != 0;
        ci->coro = (co->co_flags & CO_COROUTINE) != 0;
        ci->import_root = (uint8_t)pyrec_is_import_root(file, utf8_or(co->co_qualname, "?"));
        ci->fn_id = ci->own ? 0 : intern_buf(name);
    }
    ci->gen = pyrec_cfg.gen;
    ci->id = 0;
    if (ci->fn_id) {
        const char *file = utf8_or(co->co_filename, "?");
        char module[512];
        module_of(short_file(file), module, sizeof module);
        if (kept(module, file)) ci->id = ci->fn_id;
        if (ci->id && pyrec_is_wait_py(module, utf8_or(co->co_qualname, "?"))) ci->id |= PYREC_ID_WAIT;
    }
    return ci;
}

/* "file:line (qualname)", interned once per line of a code object. */
uint32_t pyrec_line_id(struct pyrec_code *ci, PyObject *code, int line) {
    uint32_t idx = (uint32_t)(line - ci->first_line);
    if (line >= ci->first_line && idx < ci->n_lines && ci->line_ids[idx]) return ci->line_ids[idx];
    PyCodeObject *co = (PyCodeObject *)code;
    char name[1100];
    snprintf(name, sizeof name, "%s:%d (%s)", short_file(utf8_or(co->co_filename, "?")), line,
             utf8_or(co->co_qualname, "?"));
    uint32_t id = intern_buf(name);
    if (line < ci->first_line || idx >= (1u << 20)) return id;  /* not cached: rare */
    if (idx >= ci->n_lines) {
        uint32_t n = (idx + 64) & ~63u;
        uint32_t *p = (uint32_t *)realloc(ci->line_ids, n * sizeof *p);
        if (!p) return id;
        memset(p + ci->n_lines, 0, (n - ci->n_lines) * sizeof *p);
        ci->line_ids = p;
        ci->n_lines = n;
    }
    ci->line_ids[idx] = id;
    return id;
}

/* ---- builtins and extension functions ------------------------------------- */

struct nat_ent {
    const PyMethodDef *ml;
    PyTypeObject *type;      /* the method's type (a reference), NULL for a module function */
    uint32_t id;
    unsigned gen;
};
static struct nat_ent *nat;
static size_t nat_cap, nat_used;

static size_t nat_slot(const PyMethodDef *ml, const PyTypeObject *type) {
    uint64_t h = ((uint64_t)(uintptr_t)ml >> 4) * UINT64_C(0x9e3779b97f4a7c15) ^
                 ((uint64_t)(uintptr_t)type >> 4) * UINT64_C(0xbf58476d1ce4e5b9);
    return (size_t)(h ^ (h >> 29)) & (nat_cap - 1);
}

static struct nat_ent *nat_find(const PyMethodDef *ml, const PyTypeObject *type) {
    if (!nat_cap) return NULL;
    for (size_t i = nat_slot(ml, type);; i = (i + 1) & (nat_cap - 1)) {
        struct nat_ent *e = &nat[i];
        if (e->ml == ml && e->type == type) return e;
        if (!e->ml) return NULL;
    }
}

static struct nat_ent *nat_insert(const PyMethodDef *ml, PyTypeObject *type) {
    if ((nat_used + 1) * 2 > nat_cap) {
        size_t ncap = nat_cap ? nat_cap * 2 : 1024;
        struct nat_ent *old = nat, *fresh = (struct nat_ent *)calloc(ncap, sizeof *fresh);
        if (!fresh) return NULL;
        size_t ocap = nat_cap;
        nat = fresh;
        nat_cap = ncap;
        for (size_t i = 0; i < ocap; i++)
            if (old[i].ml) {
                size_t j = nat_slot(old[i].ml, old[i].type);
                while (nat[j].ml) j = (j + 1) & (nat_cap - 1);
                nat[j] = old[i];
            }
        free(old);
    }
    size_t j = nat_slot(ml, type);
    while (nat[j].ml) j = (j + 1) & (nat_cap - 1);
    nat[j].ml = ml;
    nat[j].type = type;
    Py_XINCREF(type);  /* its address must not name another type later */
    nat_used++;
    return &nat[j];
}

/* The module a type's methods are shown under: "numpy" for numpy.ndarray,
 * "builtins" for list. */
static void type_names(PyTypeObject *type, char *module, size_t mcap, char *qual, size_t qcap) {
    const char *tp = type->tp_name, *dot = strrchr(tp, '.');
    if (type->tp_flags & Py_TPFLAGS_HEAPTYPE) {
        PyObject *m = PyDict_GetItemString(type->tp_dict, "__module__");  /* borrowed */
        snprintf(module, mcap, "%s", utf8_or(m, "?"));
    } else if (dot) {
        snprintf(module, mcap, "%.*s", (int)(dot - tp), tp);
    } else {
        snprintf(module, mcap, "builtins");
    }
    PyObject *q = PyType_GetQualName(type);
    if (q) {
        snprintf(qual, qcap, "%s", utf8_or(q, dot ? dot + 1 : tp));
        Py_DECREF(q);
    } else {
        PyErr_Clear();
        snprintf(qual, qcap, "%s", dot ? dot + 1 : tp);
    }
}

static uint32_t native_decide(const PyMethodDef *ml, PyTypeObject *type, PyObject *fn_module, PyObject *self) {
    char module[256], qual[256], name[1100];
    if (type) {
        type_names(type, module, sizeof module, qual, sizeof qual);
        snprintf(name, sizeof name, "%s.%s.%s", module, qual, ml->ml_name);
    } else {
        const char *m = utf8_or(fn_module, NULL);
        if (!m && self && PyModule_Check(self)) {
            m = PyModule_GetName(self);
            if (!m) PyErr_Clear();
        }
        snprintf(module, sizeof module, "%s", m ? m : "builtins");
        snprintf(name, sizeof name, "%s.%s", module, ml->ml_name);
    }
    /* recorder's own functions (signpost, scope.__exit__, ...) are not
     * scopes: a scope's __exit__ would otherwise close around its end. */
    if (!strncmp(module, "recorder.", 9) || !strcmp(module, "recorder")) return 0;
    if (!kept(module, NULL)) return 0;
    uint32_t id = intern_buf(name);
    return id && pyrec_is_wait_native(name) ? id | PYREC_ID_WAIT : id;
}

uint32_t pyrec_native_id(PyObject *callable) {
    const PyMethodDef *ml;
    PyTypeObject *type = NULL;
    PyObject *fn_module = NULL, *self = NULL;
    if (PyCFunction_Check(callable)) {
        PyCFunctionObject *f = (PyCFunctionObject *)callable;
        ml = f->m_ml;
        self = f->m_self;
        fn_module = f->m_module;
        if (self && !PyModule_Check(self)) type = PyType_Check(self) ? (PyTypeObject *)self : Py_TYPE(self);
    } else if (Py_IS_TYPE(callable, &PyMethodDescr_Type)) {
        PyMethodDescrObject *d = (PyMethodDescrObject *)callable;
        ml = d->d_method;
        type = PyDescr_TYPE(d);
    } else {
        return 0;
    }
    struct nat_ent *e = nat_find(ml, type);
    if (PYREC_LIKELY(e && e->gen == pyrec_cfg.gen)) return e->id;
    if (!e && !(e = nat_insert(ml, type))) return 0;
    e->id = native_decide(ml, type, fn_module, self);
    e->gen = pyrec_cfg.gen;
    return e->id;
}
