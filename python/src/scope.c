/*
 * scope.c -- recorder.scope: a scope as a context manager and as a
 * decorator, in C so that it costs what a C scope costs plus the with
 * statement's own calls.
 *
 *   with recorder.scope("load"): ...        # Scope: begin on enter, end on exit
 *   @recorder.scope("step")                  # ScopedCall: begin, call, end
 *   @recorder.scope                          # ... named by the function's qualname
 *
 * The name is interned when the object is made (rec__intern_dyn: a str
 * constant's text is found again by its address, without hashing); enter
 * and exit are one ring write each.  Exit always ends what enter began,
 * exception or not.
 */
#include "pyrec.h"

#include <structmember.h>

typedef struct {
    PyObject_HEAD
    PyObject *name;
    uint32_t id;
} ScopeObject;

typedef struct {
    PyObject_HEAD
    PyObject *func;
    PyObject *name;
    PyObject *dict;
    vectorcallfunc vectorcall;
    uint32_t id;
} ScopedCallObject;

static PyTypeObject Scope_Type, ScopedCall_Type;

uint32_t pyrec_intern_str(PyObject *name) {
    const char *s = PyUnicode_AsUTF8(name);
    if (!s) return 0;
    return rec__intern_dyn(s);
}

/* ---- the wrapper a decorator returns ---------------------------------------- */

static PyObject *scoped_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    ScopedCallObject *s = (ScopedCallObject *)self;
    uint32_t id = s->id;
    pyrec_will_write(&pyrec_t);
    if (id) rec_begin_id(id);
    PyObject *r = PyObject_Vectorcall(s->func, args, nargsf, kwnames);
    if (id) rec_end_id(id);
    return r;
}

static int forbids_scope(PyObject *func) {
    if (!PyFunction_Check(func)) return 0;
    PyCodeObject *co = (PyCodeObject *)PyFunction_GET_CODE(func);
    return (co->co_flags & (CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR | CO_ITERABLE_COROUTINE)) != 0;
}

static PyObject *make_scoped(PyObject *func, PyObject *name) {
    if (forbids_scope(func)) {
        PyErr_Format(PyExc_TypeError,
                     "recorder.scope cannot wrap %R: a generator or coroutine function runs later, "
                     "in pieces; use 'with recorder.scope(...)' between its yields or awaits",
                     func);
        return NULL;
    }
    ScopedCallObject *s = PyObject_GC_New(ScopedCallObject, &ScopedCall_Type);
    if (!s) return NULL;
    s->func = Py_NewRef(func);
    s->name = Py_NewRef(name);
    s->dict = NULL;
    s->vectorcall = scoped_vectorcall;
    s->id = pyrec_intern_str(name);
    PyErr_Clear();
    PyObject_GC_Track(s);
    /* __name__, __qualname__, __doc__, __wrapped__ ... as functools.wraps does. */
    PyObject *functools = PyImport_ImportModule("functools");
    PyObject *r = functools ? PyObject_CallMethod(functools, "update_wrapper", "OO", (PyObject *)s, func) : NULL;
    Py_XDECREF(functools);
    if (!r) {
        Py_DECREF(s);
        return NULL;
    }
    Py_DECREF(r);
    return (PyObject *)s;
}

static int scoped_traverse(PyObject *self, visitproc visit, void *arg) {
    ScopedCallObject *s = (ScopedCallObject *)self;
    Py_VISIT(s->func);
    Py_VISIT(s->dict);
    return 0;
}

static int scoped_clear(PyObject *self) {
    ScopedCallObject *s = (ScopedCallObject *)self;
    Py_CLEAR(s->func);
    Py_CLEAR(s->dict);
    return 0;
}

static void scoped_dealloc(PyObject *self) {
    PyObject_GC_UnTrack(self);
    scoped_clear(self);
    Py_CLEAR(((ScopedCallObject *)self)->name);
    Py_TYPE(self)->tp_free(self);
}

/* A method: bind like a function does. */
static PyObject *scoped_get(PyObject *self, PyObject *obj, PyObject *type) {
    (void)type;
    if (obj == NULL || obj == Py_None) return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

static PyObject *scoped_repr(PyObject *self) {
    ScopedCallObject *s = (ScopedCallObject *)self;
    return PyUnicode_FromFormat("<recorder.scope %R around %R>", s->name, s->func);
}

static PyMemberDef scoped_members[] = {
    {"scope_name", T_OBJECT, offsetof(ScopedCallObject, name), READONLY, "the scope's name"},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef scoped_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ScopedCall_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "recorder._native.ScopedCall",
    .tp_basicsize = sizeof(ScopedCallObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "A function wrapped by @recorder.scope: each call is a scope.",
    .tp_dealloc = scoped_dealloc,
    .tp_traverse = scoped_traverse,
    .tp_clear = scoped_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(ScopedCallObject, vectorcall),
    .tp_descr_get = scoped_get,
    .tp_dictoffset = offsetof(ScopedCallObject, dict),
    .tp_repr = scoped_repr,
    .tp_members = scoped_members,
    .tp_getset = scoped_getset,
};

/* ---- the context manager ------------------------------------------------------ */

static PyObject *scope_new_named(PyObject *name) {
    ScopeObject *s = PyObject_New(ScopeObject, &Scope_Type);
    if (!s) return NULL;
    s->name = Py_NewRef(name);
    s->id = pyrec_intern_str(name);
    if (PyErr_Occurred()) {
        Py_DECREF(s);
        return NULL;
    }
    return (PyObject *)s;
}

/* scope("name") -> Scope; scope(func) -> ScopedCall named by its qualname. */
static PyObject *scope_vectorcall(PyObject *type, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    (void)type;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (n != 1 || (kwnames && PyTuple_GET_SIZE(kwnames))) {
        PyErr_SetString(PyExc_TypeError, "scope(name) takes one argument: a str (or, as a decorator, a function)");
        return NULL;
    }
    PyObject *a = args[0];
    if (PyUnicode_Check(a)) return scope_new_named(a);
    if (PyCallable_Check(a)) {
        PyObject *q = PyObject_GetAttrString(a, "__qualname__");
        if (!q || !PyUnicode_Check(q)) {
            Py_XDECREF(q);
            PyErr_Clear();
            q = PyObject_Repr(a);
            if (!q) return NULL;
        }
        PyObject *r = make_scoped(a, q);
        Py_DECREF(q);
        return r;
    }
    PyErr_Format(PyExc_TypeError, "scope() wants a name (str), not %.100s", Py_TYPE(a)->tp_name);
    return NULL;
}

static PyObject *scope_tp_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    if (kw && PyDict_GET_SIZE(kw)) {
        PyErr_SetString(PyExc_TypeError, "scope() takes no keyword arguments");
        return NULL;
    }
    return scope_vectorcall((PyObject *)type, &PyTuple_GET_ITEM(args, 0), (size_t)PyTuple_GET_SIZE(args), NULL);
}

static void scope_dealloc(PyObject *self) {
    Py_XDECREF(((ScopeObject *)self)->name);
    PyObject_Free(self);
}

static PyObject *scope_enter(PyObject *self, PyObject *unused) {
    (void)unused;
    uint32_t id = ((ScopeObject *)self)->id;
    pyrec_will_write(&pyrec_t);
    if (id) rec_begin_id(id);
    return Py_NewRef(self);
}

static PyObject *scope_exit(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)args;
    (void)nargs;
    uint32_t id = ((ScopeObject *)self)->id;
    if (id) rec_end_id(id);
    Py_RETURN_NONE;
}

/* As a decorator: @scope("name") */
static PyObject *scope_call(PyObject *self, PyObject *args, PyObject *kw) {
    PyObject *func;
    if ((kw && PyDict_GET_SIZE(kw)) || !PyArg_ParseTuple(args, "O:scope", &func)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "a scope decorates one function");
        return NULL;
    }
    if (!PyCallable_Check(func)) {
        PyErr_Format(PyExc_TypeError, "a scope decorates a function, not %.100s", Py_TYPE(func)->tp_name);
        return NULL;
    }
    return make_scoped(func, ((ScopeObject *)self)->name);
}

static PyObject *scope_repr(PyObject *self) {
    return PyUnicode_FromFormat("<recorder.scope %R>", ((ScopeObject *)self)->name);
}

static PyMethodDef scope_methods[] = {
    {"__enter__", scope_enter, METH_NOARGS, "Begin the scope."},
    {"__exit__", (PyCFunction)(void (*)(void))scope_exit, METH_FASTCALL, "End the scope."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef scope_members[] = {
    {"name", T_OBJECT, offsetof(ScopeObject, name), READONLY, "the scope's name"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject Scope_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "recorder._native.scope",
    .tp_basicsize = sizeof(ScopeObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "scope(name): a scope named name, as a context manager (with scope(\"load\"): ...)\n"
              "or a decorator (@scope(\"step\"), or @scope to use the function's qualified name).",
    .tp_new = scope_tp_new,
    .tp_vectorcall = scope_vectorcall,
    .tp_dealloc = scope_dealloc,
    .tp_call = scope_call,
    .tp_repr = scope_repr,
    .tp_methods = scope_methods,
    .tp_members = scope_members,
};

int pyrec_scope_types_ready(PyObject *module) {
    if (PyType_Ready(&Scope_Type) < 0 || PyType_Ready(&ScopedCall_Type) < 0) return -1;
    if (PyModule_AddObjectRef(module, "scope", (PyObject *)&Scope_Type) < 0) return -1;
    if (PyModule_AddObjectRef(module, "ScopedCall", (PyObject *)&ScopedCall_Type) < 0) return -1;
    return 0;
}
