// The Galeras runs database is written and read by the results room, the one SQL owner of core
// (results/galerasdb.h); this header keeps the galeras room's name for it.
#pragma once
#include "ascviz/results/galerasdb.h"
