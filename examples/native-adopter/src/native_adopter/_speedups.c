/* native_adopter._speedups: a dot product over two sequences of floats, in C.
 *
 * The sequences are copied into C arrays, then a plain C kernel accumulates them with fused
 * multiply-adds (one rounding per term). Written against the stable ABI (Py_LIMITED_API,
 * CPython 3.10+): one abi3 wheel per platform serves every CPython from 3.10 on, and abi3audit
 * checks that the promise holds. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>

static double
dot_kernel(const double *x, const double *y, Py_ssize_t n)
{
    double total = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) {
        total = fma(x[i], y[i], total);
    }
    return total;
}

/* Copy a sequence of numbers into out[0:n]; -1 with an exception set on failure. */
static int
to_doubles(PyObject *seq, double *out, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_GetItem(seq, i);
        if (item == NULL) {
            return -1;
        }
        out[i] = PyFloat_AsDouble(item);
        Py_DECREF(item);
        if (out[i] == -1.0 && PyErr_Occurred()) {
            return -1;
        }
    }
    return 0;
}

static PyObject *
dot(PyObject *self, PyObject *args)
{
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "OO", &a, &b)) {
        return NULL;
    }
    Py_ssize_t n = PySequence_Size(a);
    Py_ssize_t m = PySequence_Size(b);
    if (n < 0 || m < 0) {
        return NULL;
    }
    if (n != m) {
        return PyErr_Format(PyExc_ValueError, "dot: lengths differ (%zd and %zd)", n, m);
    }
    double *buffer = malloc(2 * (size_t)(n > 0 ? n : 1) * sizeof(double));
    if (buffer == NULL) {
        return PyErr_NoMemory();
    }
    PyObject *result = NULL;
    if (to_doubles(a, buffer, n) == 0 && to_doubles(b, buffer + n, n) == 0) {
        result = PyFloat_FromDouble(dot_kernel(buffer, buffer + n, n));
    }
    free(buffer);
    return result;
}

static PyMethodDef methods[] = {
    {"dot", dot, METH_VARARGS, "dot(a, b) -> float: the dot product of two float sequences."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_speedups", "C kernels of native_adopter.", -1, methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    return PyModule_Create(&module);
}
