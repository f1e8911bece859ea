// What a program that trains under an MPI launcher (`mpirun -np N openge train ...`) needs beside
// the Trainer (openge/trainer.h): the spelling of the gradient split lists, and how a failing
// rank ends the job instead of leaving the other ranks waiting for it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "openge/status.h"

namespace openge::distributed {

// Whether an MPI launcher started this process (mpirun / mpiexec put the rank in the environment).
bool started_by_mpi_launcher();

// Marks the job failed: at exit MPI is aborted rather than finalised (a finalize would wait for
// ranks that wait for this one).
void mark_job_failed();

// "20,100,159" / "60,20,20" (the CLI's and Python's spelling of TrainerOptions.split_by_index
// and split_by_size).
Result<std::vector<int64_t>> parse_split_indices(const std::string& text);
Result<std::vector<double>> parse_split_sizes(const std::string& text);

}  // namespace openge::distributed
