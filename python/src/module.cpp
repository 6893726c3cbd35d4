// The module ascviz._ascviz and the translation of core's errors into Python exceptions.
#include "binding.h"

#include "ascviz/base/error.h"
#include "ascviz/model/model.h"

#include <nanobind/stl/string.h>

#include <exception>

namespace nb = nanobind;

namespace ascviz::python {

namespace {

// The exception classes, created once at import (module attributes keep them alive).
PyObject* g_error = nullptr;
PyObject* g_inputError = nullptr;
PyObject* g_modelError = nullptr;
PyObject* g_tokenizerError = nullptr;
PyObject* g_cancelled = nullptr;

PyObject* newException(nb::module_& m, const char* name, PyObject* bases, const char* doc)
{
    const std::string qualified = std::string("ascviz.") + name;
    PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
    if (!type)
        throw nb::python_error();
    m.attr(name) = nb::handle(type);
    return type;
}

} // namespace

void bindErrors(nb::module_& m)
{
    g_error = newException(m, "Error", PyExc_RuntimeError, "An error of AsC-Viz's core, with core's message.");
    nb::object inputBases = nb::make_tuple(nb::handle(g_error), nb::handle(PyExc_ValueError));
    g_inputError = newException(m, "InputError", inputBases.ptr(),
                                "Bad input: a missing or malformed file, a text past a limit, an unknown language.");
    g_modelError = newException(m, "ModelError", g_error, "A model folder that cannot be loaded or run.");
    g_tokenizerError = newException(m, "TokenizerError", inputBases.ptr(),
                                    "A tokenizer.json that is malformed or uses what AsC-Viz does not implement.");
    g_cancelled = newException(m, "Cancelled", g_error, "A long operation was cancelled.");
    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const Cancelled& e) {
            PyErr_SetString(g_cancelled, e.what());
        } catch (const InputError& e) {
            PyErr_SetString(g_inputError, e.what());
        } catch (const ModelError& e) {
            PyErr_SetString(g_modelError, e.what());
        } catch (const TokenizerError& e) {
            PyErr_SetString(g_tokenizerError, e.what());
        } catch (const Error& e) {
            PyErr_SetString(g_error, e.what());
        }
    });
}

} // namespace ascviz::python

NB_MODULE(_ascviz, m)
{
    m.doc() = "AsC-Viz's core (C++) as a Python extension; use the package ascviz, not this module.";
    ascviz::python::bindErrors(m);
    ascviz::python::bindModel(m);
    ascviz::python::bindCorpus(m);
    ascviz::python::bindAnalyses(m);
    ascviz::python::bindExperts(m);
    m.def("torch_version", &ascviz::torchVersion, "The LibTorch version this extension was built with.");
    m.def("torch_build", &ascviz::torchBuild, "Where the LibTorch came from (PyTorch wheel, system, ...).");
    m.def("cuda_available", &ascviz::cudaAvailable);
}
