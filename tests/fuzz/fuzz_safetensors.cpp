// Fuzz target: .safetensors files (the weights of a Hugging Face model folder): open_safetensors_file's
// header-length and header checks, then read_tensor on every tensor of an index that loads. Each input is
// written to an in-memory file (memfd) and opened by its /proc path, so the reader's own file code runs.
//
// Checked besides not crashing: a failed open leaves its output unchanged; an index that loads has unique
// names in order, byte ranges inside the file that do not overlap and match shape x dtype size; every
// F32/F16/BF16 tensor of it reads back with its shape's element count, and every other dtype is refused.
#include "core/io/safetensors.h"
#include "fuzz_support.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

using namespace attnlab;

namespace
{

int memory_fd = -1;
std::string memory_path;

[[noreturn]] void fail(const char* what, const std::string& detail)
{
    std::fprintf(stderr, "fuzz_safetensors: %s: %s\n", what, detail.c_str());
    std::abort();
}

void check_index(const SafetensorsIndex& index, std::uint64_t file_size)
{
    const TensorInfo* previous = nullptr;
    for (const TensorInfo& t : index.tensors)
    {
        if (previous != nullptr && !(previous->name < t.name))
            fail("names not unique and sorted", t.name);
        previous = &t;
        if (t.begin > t.end || t.end > file_size)
            fail("byte range outside the file", t.name);
        if (t.dtype != SafetensorsDtype::Other &&
            t.end - t.begin != t.elements() * static_cast<unsigned>(dtype_size(t.dtype)))
            fail("byte range does not match shape x dtype", t.name);
        for (const TensorInfo& u : index.tensors)
            if (&u != &t && t.begin < t.end && u.begin < u.end && t.begin < u.end && u.begin < t.end)
                fail("byte ranges overlap", t.name + " and " + u.name);
    }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    fuzz::single_thread();
    memory_fd = memfd_create("fuzz_safetensors", MFD_CLOEXEC);
    if (memory_fd < 0)
        fail("memfd_create", "cannot make the in-memory file");
    memory_path = "/proc/self/fd/" + std::to_string(memory_fd);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (ftruncate(memory_fd, 0) != 0 ||
        (size > 0 && pwrite(memory_fd, data, size, 0) != static_cast<ssize_t>(size)))
        fail("writing the in-memory file", std::to_string(size) + " bytes");

    SafetensorsIndex index;
    index.files = {"untouched"};
    const Status status = open_safetensors_file(memory_path, &index);
    if (!status)
    {
        if (index.files.size() != 1 || index.files[0] != "untouched" || !index.tensors.empty())
            fail("a failed open changed its output", status.message());
        return 0;
    }
    check_index(index, size);
    for (const TensorInfo& t : index.tensors)
    {
        Mat m;
        const Status read = read_tensor(index, t.name, &m);
        if (t.dtype == SafetensorsDtype::Other)
        {
            if (read)
                fail("read a tensor of an unsupported dtype", t.name);
            continue;
        }
        if (!read)
            fail("a tensor of a loaded index did not read", read.message());
        if (static_cast<std::uint64_t>(m.size()) != t.elements())
            fail("read the wrong number of elements", t.name);
    }
    return 0;
}
