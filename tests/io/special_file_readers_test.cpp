// Readers take regular files only: a FIFO (or a device) given as an input tensor (.npy, .pb), a
// dump file or a model's external data is one error naming the path, returned at once. Opening
// a FIFO for reading would otherwise wait for a writer for ever; each read here runs on its own
// thread and the test fails (and unblocks it) when it has not returned within 5 s.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <string>

#include "dump/dump_file.h"
#include "frontend/model_proto_builder.h"
#include "frontend/onnx_loader.h"
#include "frontend/tensor_proto.h"
#include "io/npy.h"
#include "options/options_test_util.h"

namespace openge {
namespace {
namespace fs = std::filesystem;
using options::test::TempDir;

// Runs `read` (which must fail) and returns its message; a read still blocked after 5 s fails
// the test, and a writer opened on `fifo` then releases it.
std::string refused_quickly(const std::string& fifo, std::function<Status()> read) {
  auto done = std::async(std::launch::async, std::move(read));
  if (done.wait_for(std::chrono::seconds(5)) == std::future_status::timeout) {
    ADD_FAILURE() << "the reader of " << fifo << " blocked on the FIFO";
    const int fd = ::open(fifo.c_str(), O_RDWR);  // a writer: the blocked open returns
    const Status late = done.get();
    if (fd >= 0) ::close(fd);
    return late.message();
  }
  const Status st = done.get();
  EXPECT_FALSE(st.ok()) << fifo << " was read as a file";
  EXPECT_NE(st.message().find(fifo), std::string::npos) << st.message();
  return st.message();
}

std::string make_fifo(const TempDir& d, const std::string& name) {
  const std::string path = d.path() + "/" + name;
  EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0);
  return path;
}

template <typename R>
Status status_of(const R& r) {
  return r.ok() ? Status::Ok() : r.status();
}

TEST(SpecialFileReaders, InputTensorsAndDumpFilesThatAreFifosAreRefusedAtOnce) {
  TempDir d;
  const std::string npy = make_fifo(d, "x.npy"), pb = make_fifo(d, "x.pb"), dump = make_fifo(d, "Add.add.1.0.1");
  EXPECT_NE(refused_quickly(npy, [&] { return status_of(read_npy(npy)); }).find("not a regular file"),
            std::string::npos);
  EXPECT_NE(refused_quickly(pb, [&] { return status_of(read_tensor_pb(pb)); }).find("not a regular file"),
            std::string::npos);
  EXPECT_NE(refused_quickly(dump, [&] { return status_of(dump::read_dump_file(dump)); }).find("not a regular file"),
            std::string::npos);
}

TEST(SpecialFileReaders, ExternalDataThatIsAFifoIsRefusedAtOnce) {
  TempDir d;
  const std::string fifo = make_fifo(d, "w.bin");
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  test::add_float_input(g, "x", {2});
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(2);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* location = w->add_external_data();
  location->set_key("location");
  location->set_value("w.bin");
  test::add_node(g, "Add", {"x", "w"}, {"y"});
  auto* y = g->add_output();
  y->set_name("y");
  y->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  const std::string model = d.path() + "/m.onnx";
  {
    std::ofstream out(model, std::ios::binary);
    m.SerializeToOstream(&out);
  }
  const std::string why = refused_quickly(fifo, [&] { return status_of(load_onnx(model)); });
  EXPECT_NE(why.find("not a regular file"), std::string::npos) << why;
}

}  // namespace
}  // namespace openge
