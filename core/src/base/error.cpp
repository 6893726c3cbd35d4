#include "ascviz/base/error.h"
// Errors are header-only; this translation unit anchors the library.
