"""openge.Trainer: training from Python on the handwritten digits python3-sklearn ships."""
import os
import subprocess
import sys

import numpy
import pytest

import openge

HERE = os.path.dirname(os.path.abspath(__file__))
MAKE_DIGITS = os.path.join(os.environ["OPENGE_SOURCE_DIR"], "tests", "training", "make_digits.py")


@pytest.fixture(scope="module")
def digits(tmp_path_factory):
    out = tmp_path_factory.mktemp("digits")
    subprocess.run([sys.executable, MAKE_DIGITS, str(out)], check=True)
    load = lambda split: {"image": numpy.load(out / split / "image.npy"), "labels": numpy.load(out / split / "labels.npy")}
    return out, load("train"), load("test")


def accuracy(trainer, data):
    (logits,) = trainer.evaluate({"image": data["image"]})
    return float((logits.argmax(axis=1) == data["labels"]).mean())


def test_fit_learns_the_digits_and_the_saved_model_runs_in_a_session(digits, tmp_path):
    folder, train, test = digits
    trainer = openge.Trainer(folder / "mlp.onnx", loss="cross_entropy", optimizer="momentum", lr=0.05, threads=2)
    assert [f.name for f in trainer.feeds] == ["image", "labels"]
    assert trainer.trainable == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    before = accuracy(trainer, test)
    losses = trainer.fit(train, epochs=8, batch_size=32, seed=1)
    assert losses[-1] < 0.25 * losses[0]
    after = accuracy(trainer, test)
    assert after >= 0.95 > before
    assert trainer.steps == 8 * 45
    saved = tmp_path / "trained.onnx"
    trainer.save(str(saved))
    (logits,) = openge.Session(saved, threads=2).run(None, {"image": test["image"]})
    (expected,) = trainer.evaluate({"image": test["image"]})
    numpy.testing.assert_allclose(logits, expected, rtol=1e-5, atol=1e-5)


def test_step_returns_the_loss_and_parameters_change(digits):
    folder, train, _ = digits
    trainer = openge.Trainer(folder / "mlp.onnx", optimizer="adam", lr=0.01)
    w0 = trainer.parameter("fc1.weight").copy()
    batch = {"image": train["image"][:16], "labels": train["labels"][:16]}
    first = trainer.step(batch)
    assert first > 1.0  # about ln(10) for random initial weights
    assert not numpy.array_equal(w0, trainer.parameter("fc1.weight"))
    assert set(trainer.parameters()) == set(trainer.trainable)


def test_bad_requests_raise_the_package_errors(digits):
    folder, train, _ = digits
    with pytest.raises(openge.OptionError, match="adagrad"):
        openge.Trainer(folder / "mlp.onnx", optimizer="adagrad")
    with pytest.raises(openge.OptionError, match="graph_run_mode=1"):
        openge.Trainer(folder / "mlp.onnx", options={"graph_run_mode": 0})
    trainer = openge.Trainer(folder / "mlp.onnx")
    with pytest.raises(openge.InputError, match="missing feed 'labels'"):
        trainer.step({"image": train["image"][:4]})
    with pytest.raises(ValueError, match=r"threads must be in \[0, 1024\]"):
        openge.Trainer(folder / "mlp.onnx", threads=65536)


# Run by test_data_parallel_fit_under_mpirun on each rank: fit on the digits, then the parameters
# to OUT/rank<r>.npz.
MPI_SCRIPT = """
import sys, numpy, openge
folder, out = sys.argv[1], sys.argv[2]
load = lambda split: {"image": numpy.load(f"{folder}/{split}/image.npy"), "labels": numpy.load(f"{folder}/{split}/labels.npy")}
trainer = openge.Trainer(f"{folder}/mlp.onnx", optimizer="momentum", lr=0.05, threads=1, split_by_size=[50, 50])
trainer.fit(load("train"), epochs=2, batch_size=64, seed=3)
numpy.savez(f"{out}/rank{trainer.rank}.npz", world_size=trainer.world_size, **trainer.parameters())
"""


def test_data_parallel_fit_under_mpirun_matches_one_process(digits, tmp_path):
    folder, train, _ = digits
    script = tmp_path / "fit.py"
    script.write_text(MPI_SCRIPT)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none")
    run = subprocess.run(["mpirun", "--oversubscribe", "-np", "2", sys.executable, str(script), str(folder), str(tmp_path)],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:]
    ranks = [numpy.load(tmp_path / f"rank{r}.npz") for r in range(2)]
    assert int(ranks[0]["world_size"]) == 2
    one = openge.Trainer(folder / "mlp.onnx", optimizer="momentum", lr=0.05, threads=1)
    assert one.rank == 0 and one.world_size == 1
    one.fit(train, epochs=2, batch_size=64, seed=3)
    for name, value in one.parameters().items():
        assert ranks[0][name].tobytes() == ranks[1][name].tobytes(), name  # every rank holds the same weights
        assert numpy.abs(ranks[0][name] - value).max() <= 1e-5, name
