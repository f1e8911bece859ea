// One configuration problem in CANN's style (Problem, format_problems): declared in the public
// openge/options.h, which configurations report their problems through.
#pragma once
#include "openge/options.h"
