#include "base/parallel.h"

namespace openge {

int num_threads() { return omp_get_max_threads(); }

}  // namespace openge
