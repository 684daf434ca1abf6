// Safetensors reader: header checks, the sharded folder's index, and tensors read by byte range into floats.
#include "safetensors.h"

#include "atomic_file.h"
#include "json_parse.h"
#include "json_reader.h"

#include "core/tokenizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the safetensors reader assumes a little-endian machine, as the format's bytes are"
#endif

namespace attnlab
{

namespace
{

using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kSupportedDtypes = "F32, F16 and BF16";
constexpr const char* kIndexFileName = "model.safetensors.index.json";
constexpr const char* kSingleFileName = "model.safetensors";

// The dtypes of the safetensors format that Attention Lab does not convert, with their element sizes: a
// header may hold them (an I64 position_ids buffer beside float weights), reading one is refused.
struct OtherDtype
{
    const char* name;
    int bytes;
};
constexpr OtherDtype kOtherDtypes[] = {{"BOOL", 1},    {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1},
                                       {"F8_E8M0", 1}, {"I16", 2}, {"U16", 2}, {"I32", 4},     {"U32", 4},
                                       {"F64", 8},     {"I64", 8}, {"U64", 8}};

// A name from a file, quoted and cut to about 80 bytes (on a UTF-8 boundary) for messages.
std::string quote_name(std::string_view name)
{
    const std::string_view shown = utf8_prefix(name, 80);
    return "\"" + std::string(shown) + (shown.size() < name.size() ? "…\"" : "\"");
}

std::string system_reason(int err)
{
    return std::strerror(err);
}

// An open regular file, closed on destruction.
class ReadOnlyFile
{
public:
    ReadOnlyFile() = default;
    ~ReadOnlyFile()
    {
        if (fd_ >= 0)
            ::close(fd_);
    }
    ReadOnlyFile(const ReadOnlyFile&) = delete;
    ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;

    // Opens path; a folder, device, FIFO or socket is refused without reading (O_NONBLOCK: a FIFO does not
    // block the open).
    Status open(const std::string& path)
    {
        fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd_ < 0)
            return Status::error("cannot read " + path_for_message(path) + ": " + system_reason(errno));
        struct stat st = {};
        if (::fstat(fd_, &st) != 0)
            return Status::error("cannot read " + path_for_message(path) + ": " + system_reason(errno));
        if (!S_ISREG(st.st_mode))
            return Status::error(
                "cannot read " + path_for_message(path) + ": " +
                (S_ISDIR(st.st_mode) ? "it is a folder" : "it is not a regular file (a device or a FIFO)") +
                "; give the path of a .safetensors file or of a model folder");
        size_ = static_cast<std::uint64_t>(st.st_size);
        return Status::ok();
    }

    std::uint64_t size() const { return size_; }

    // Reads exactly n bytes at offset into dst; false (with errno, 0 for a file cut short) otherwise.
    bool read_at(std::uint64_t offset, std::size_t n, char* dst, int* err) const
    {
        while (n > 0)
        {
            const std::size_t chunk = std::min<std::size_t>(n, std::size_t{1} << 30);
            const ssize_t got = ::pread(fd_, dst, chunk, static_cast<off_t>(offset));
            if (got < 0)
            {
                if (errno == EINTR)
                    continue;
                *err = errno != 0 ? errno : EIO;
                return false;
            }
            if (got == 0)
            {
                *err = 0;
                return false;
            }
            dst += got;
            n -= static_cast<std::size_t>(got);
            offset += static_cast<std::uint64_t>(got);
        }
        return true;
    }

private:
    int fd_ = -1;
    std::uint64_t size_ = 0;
};

// Counts the members of a document's root object, stopping at the first past limit; deeper levels and
// errors are left to the parser proper (parse_json_text), which runs only when the count is within it.
class RootMemberCounter
{
public:
    explicit RootMemberCounter(std::size_t limit) : limit_(limit) {}
    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(json::number_integer_t) { return true; }
    bool number_unsigned(json::number_unsigned_t) { return true; }
    bool number_float(json::number_float_t, const std::string&) { return true; }
    bool string(std::string&) { return true; }
    bool binary(json::binary_t&) { return true; }
    template <class Exception> bool parse_error(std::size_t, const std::string&, const Exception&)
    {
        return false;
    }
    bool start_object(std::size_t) { return ++depth_ <= kMaxDepth; }
    bool end_object() { return --depth_, true; }
    bool start_array(std::size_t) { return ++depth_ <= kMaxDepth; }
    bool end_array() { return --depth_, true; }
    bool key(std::string&) { return depth_ != 1 || ++count_ <= limit_; }
    bool over() const { return count_ > limit_; }

private:
    static constexpr int kMaxDepth = 128; // deeper: the parser proper says what is wrong
    std::size_t limit_;
    std::size_t count_ = 0;
    int depth_ = 0;
};

// Parses a JSON document of a model (header or index), recording its first repeated key (a tensor named
// twice) for the caller's message. source names it.
Status parse_model_json(std::string_view text, const std::string& source, json* out,
                        JsonRepeatedKey* repeated)
{
    if (Status s = parse_json_text(text, out, nullptr, repeated); !s)
        return Status::error(source + ": " + s.message());
    return Status::ok();
}

// Element size of a dtype name of the format, or 0 when it is not one.
int element_bytes(std::string_view name, SafetensorsDtype* dtype)
{
    if (name == "F32")
        return *dtype = SafetensorsDtype::F32, 4;
    if (name == "F16")
        return *dtype = SafetensorsDtype::F16, 2;
    if (name == "BF16")
        return *dtype = SafetensorsDtype::BF16, 2;
    for (const OtherDtype& other : kOtherDtypes)
        if (name == other.name)
            return *dtype = SafetensorsDtype::Other, other.bytes;
    return 0;
}

// One tensor's entry of a header. where is "FILE: tensor \"NAME\"".
Status read_entry(const json& entry, const std::string& where, std::uint64_t data_bytes,
                  std::uint64_t header_end, TensorInfo* info)
{
    if (!entry.is_object())
        return Status::error(where +
                             " must be an object with \"dtype\", \"shape\" and \"data_offsets\", got " +
                             describe_json(entry));
    for (const char* key : {"dtype", "shape", "data_offsets"})
        if (entry.find(key) == entry.end())
            return Status::error(where + " has no \"" + key +
                                 "\"; each tensor needs \"dtype\", \"shape\" and \"data_offsets\" (the file "
                                 "is damaged or was not written by a safetensors library)");

    const json& dtype = entry["dtype"];
    if (!dtype.is_string())
        return Status::error(where + ": \"dtype\" must be a string such as \"F32\", got " +
                             describe_json(dtype));
    const std::string& dtype_text = dtype.get_ref<const std::string&>();
    const int size = element_bytes(dtype_text, &info->dtype);
    if (size == 0)
        return Status::error(where + " has dtype " + quote_name(dtype_text) +
                             ", which is not a safetensors dtype Attention Lab knows; supported: " +
                             kSupportedDtypes + " (save the model in float32, float16 or bfloat16)");
    info->dtype_text = dtype_text;

    const json& shape = entry["shape"];
    if (!shape.is_array())
        return Status::error(where + ": \"shape\" must be a list of sizes such as [768, 2304], got " +
                             describe_json(shape));
    if (shape.size() > static_cast<std::size_t>(kMaxTensorRank))
        return Status::error(where + " has " + std::to_string(shape.size()) + " dimensions; at most " +
                             std::to_string(kMaxTensorRank) + " are read");
    // Elements x element size must fit in 64 bits (the byte range is compared with it).
    const std::uint64_t max_elements =
        std::numeric_limits<std::uint64_t>::max() / static_cast<unsigned>(size);
    std::uint64_t elements = 1;
    info->shape.clear();
    for (const json& dim : shape)
    {
        if (dim.is_number_integer() && !dim.is_number_unsigned())
            return Status::error(where + " has a negative size " + describe_json(dim) + " in its shape " +
                                 json_excerpt(shape) + "; sizes must be 0 or more");
        if (!dim.is_number_unsigned() ||
            dim.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return Status::error(where + ": \"shape\" must be a list of whole sizes, got " +
                                 json_excerpt(shape));
        const std::uint64_t d = dim.get<std::uint64_t>();
        if (d != 0 && elements > max_elements / d)
            return Status::error(where + " has the shape " + json_excerpt(shape) +
                                 ", whose size overflows; the header is damaged");
        elements *= d;
        info->shape.push_back(static_cast<std::int64_t>(d));
    }

    const json& offsets = entry["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
        !offsets[1].is_number_unsigned())
        return Status::error(where + ": \"data_offsets\" must be two byte offsets [begin, end], got " +
                             json_excerpt(offsets));
    const std::uint64_t begin = offsets[0].get<std::uint64_t>(), end = offsets[1].get<std::uint64_t>();
    if (begin > end)
        return Status::error(where + " has \"data_offsets\" [" + std::to_string(begin) + ", " +
                             std::to_string(end) + "] that end before they begin; the header is damaged");
    if (end > data_bytes)
        return Status::error(where + " has \"data_offsets\" [" + std::to_string(begin) + ", " +
                             std::to_string(end) + "] past the end of the data (" +
                             std::to_string(data_bytes) +
                             " bytes); the file is cut short or damaged: download it again");
    const std::uint64_t expected = elements * static_cast<unsigned>(size);
    if (end - begin != expected)
        return Status::error(where + " has " + std::to_string(end - begin) +
                             " bytes of data, but its shape " + format_shape(info->shape) + " in " +
                             dtype_text + " takes " + std::to_string(expected) +
                             " bytes; the header is damaged");
    info->begin = header_end + begin;
    info->end = header_end + end;
    return Status::ok();
}

Status read_metadata(const json& metadata, const std::string& file, std::map<std::string, std::string>* out)
{
    if (!metadata.is_object())
        return Status::error(path_for_message(file) +
                             ": \"__metadata__\" must be an object of strings, got " +
                             describe_json(metadata));
    for (auto it = metadata.begin(); it != metadata.end(); ++it)
    {
        if (!it->is_string())
            return Status::error(path_for_message(file) + ": \"__metadata__\"." + quote_name(it.key()) +
                                 " must be a string, got " + describe_json(*it));
        (*out)[it.key()] = it->get<std::string>();
    }
    return Status::ok();
}

// What a folder without safetensors weights holds instead, and how to convert it.
Status no_safetensors_status(const fs::path& folder)
{
    static const char* const kOtherWeights[] = {"pytorch_model.bin", "pytorch_model.bin.index.json",
                                                "tf_model.h5", "flax_model.msgpack", "model.ckpt.index"};
    std::error_code ec;
    for (const char* name : kOtherWeights)
        if (fs::exists(folder / name, ec))
            return Status::error(
                path_for_message(folder.string()) + " has " + name + " but no " + kSingleFileName +
                ": Attention Lab reads weights only in the safetensors format. Convert it to safetensors "
                "once, with Python and the transformers package: model = AutoModelForCausalLM (GPT-2) or "
                "AutoModelForMaskedLM (BERT) .from_pretrained(\"FOLDER\"), then "
                "model.save_pretrained(\"FOLDER\", safe_serialization=True)");
    return Status::error("no " + std::string(kSingleFileName) + " (or " + kIndexFileName + ") in " +
                         path_for_message(folder.string()) +
                         "; give a Hugging Face model folder as the Hub ships it, or a .safetensors file");
}

// A shard's name from the index: a plain file name in the folder (no path, so an index cannot point outside).
bool plain_file_name(const std::string& name)
{
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
           name.find('\\') == std::string::npos && name.find('\0') == std::string::npos;
}

Status open_sharded(const fs::path& folder, SafetensorsIndex* out)
{
    const std::string index_path = (folder / kIndexFileName).string();
    const std::string where = path_for_message(index_path);
    std::string text;
    ATTNLAB_TRY(read_file(index_path, &text, kMaxSessionFileBytes, "safetensors index file"));
    json root;
    JsonRepeatedKey duplicates;
    ATTNLAB_TRY(parse_model_json(text, where, &root, &duplicates));
    if (duplicates.found && duplicates.root_key == "weight_map")
        return Status::error(where + ": tensor " + quote_name(duplicates.key) +
                             " is named twice in \"weight_map\"; the index is damaged: download it again");
    // Any other key given twice (the last one would win: a second "weight_map" silently, and a repeat in
    // "metadata" would hide one in "weight_map", as only the first repeat is recorded).
    if (duplicates.found)
        return Status::error(
            where + ": the key " + quote_name(duplicates.key) + " is given twice" +
            (duplicates.root_key.empty() ? std::string() : " in " + quote_name(duplicates.root_key)) +
            "; the index is damaged: download it again");
    if (!root.is_object())
        return Status::error(where + ": expected a JSON object with \"weight_map\", got " +
                             describe_json(root));
    const auto map = root.find("weight_map");
    if (map == root.end() || !map->is_object())
        return Status::error(where +
                             ": \"weight_map\" must be an object naming each tensor's shard file, got " +
                             (map == root.end() ? std::string("nothing") : describe_json(*map)));

    if (map->empty())
        return Status::error(where + ": \"weight_map\" names no tensor, so the model has no weights; the "
                                     "index is damaged: download it again");

    // Shards in the order the map first names them; each opened once (a set: an index may name 100,000s).
    std::vector<std::string> shard_names;
    std::set<std::string> named;
    for (auto it = map->begin(); it != map->end(); ++it)
    {
        if (!it->is_string() || !plain_file_name(it->get_ref<const std::string&>()))
            return Status::error(where + ": \"weight_map\"." + quote_name(it.key()) +
                                 " must be the file name of a shard in the same folder, got " +
                                 describe_json(*it));
        const std::string& shard = it->get_ref<const std::string&>();
        if (fs::path(shard).extension() != ".safetensors")
            return Status::error(
                where + ": \"weight_map\"." + quote_name(it.key()) + " names " + quote_name(shard) +
                ", which is not a .safetensors file; the index is damaged: download it again");
        if (named.insert(shard).second)
            shard_names.push_back(shard);
    }
    std::sort(shard_names.begin(), shard_names.end());

    SafetensorsIndex merged;
    std::map<std::string, SafetensorsIndex> shards;
    std::size_t listed = 0; // tensors in the shards' headers so far: the limit is the model's, not a file's
    for (const std::string& shard : shard_names)
    {
        const fs::path shard_path = folder / shard;
        if (!path_present(shard_path)) // a link that loops or leads nowhere is opened below, which says so
        {
            std::string first_tensor;
            for (auto it = map->begin(); it != map->end() && first_tensor.empty(); ++it)
                if (it->get_ref<const std::string&>() == shard)
                    first_tensor = it.key();
            return Status::error("the shard " + quote_name(shard) + " is missing from " +
                                 path_for_message(folder.string()) + " (" + kIndexFileName +
                                 " names it for tensor " + quote_name(first_tensor) +
                                 "); download every shard file of the model into the folder");
        }
        SafetensorsIndex index;
        ATTNLAB_TRY(open_safetensors_file(shard_path.string(), &index));
        listed += index.tensors.size();
        if (listed > kMaxSafetensorsTensors)
            return Status::error(path_for_message(folder.string()) + ": its " +
                                 std::to_string(shard_names.size()) + " shards list more than " +
                                 std::to_string(kMaxSafetensorsTensors) +
                                 " tensors in all (GPT-2 XL has about 600); the files are damaged or not a "
                                 "model's weights");
        if (merged.files.empty())
            merged.metadata = index.metadata;
        merged.files.push_back(shard_path.string());
        shards.emplace(shard, std::move(index));
    }
    for (auto it = map->begin(); it != map->end(); ++it)
    {
        const SafetensorsIndex& shard = shards.at(it->get<std::string>());
        const TensorInfo* info = shard.find(it.key());
        if (info == nullptr)
            return Status::error(where + " names tensor " + quote_name(it.key()) + " in the shard " +
                                 quote_name(it->get<std::string>()) +
                                 ", which has no tensor of that name; the index and the shards are from "
                                 "different downloads: download the model again");
        merged.tensors.push_back(*info);
    }
    std::sort(merged.tensors.begin(), merged.tensors.end(),
              [](const TensorInfo& a, const TensorInfo& b) { return a.name < b.name; });
    *out = std::move(merged);
    return Status::ok();
}

// A tensor read as float is a matrix: the last dimension its columns, the product of the others its rows (a
// scalar 1 x 1).
Eigen::Index tensor_cols(const TensorInfo& info)
{
    return info.shape.empty() ? 1 : static_cast<Eigen::Index>(info.shape.back());
}
Eigen::Index tensor_rows(const TensorInfo& info)
{
    Eigen::Index rows = 1;
    for (std::size_t i = 0; i + 1 < info.shape.size(); ++i)
        rows *= static_cast<Eigen::Index>(info.shape[i]);
    return rows;
}

bool host_is_little_endian()
{
    const std::uint32_t one = 1;
    unsigned char first = 0;
    std::memcpy(&first, &one, 1);
    return first == 1;
}

// Converts n elements of dtype (F32, F16 or BF16; no alignment assumed) at src to float at dst.
void decode_elements(SafetensorsDtype dtype, const char* src, std::size_t n, float* dst)
{
    switch (dtype)
    {
    case SafetensorsDtype::F32:
        std::memcpy(dst, src, n * 4);
        break;
    case SafetensorsDtype::F16:
    case SafetensorsDtype::BF16:
    {
        const bool half = dtype == SafetensorsDtype::F16;
        for (std::size_t i = 0; i < n; ++i)
        {
            std::uint16_t bits;
            std::memcpy(&bits, src + 2 * i, 2);
            dst[i] = half ? f16_to_float(bits) : bf16_to_float(bits);
        }
        break;
    }
    case SafetensorsDtype::Other:
        break;
    }
}

template <typename Out>
Status read_tensor_into(const SafetensorsIndex& index, std::string_view name, Out* out)
{
    const TensorInfo* info = index.find(name);
    if (info == nullptr)
        return Status::error("no tensor " + quote_name(name) + " in the model");
    if (info->dtype == SafetensorsDtype::Other)
        return Status::error(path_for_message(info->file) + ": tensor " + quote_name(info->name) +
                             " has dtype " + info->dtype_text +
                             ", which Attention Lab does not read; supported: " + kSupportedDtypes +
                             " (save the model in float32, float16 or bfloat16)");
    if (info->elements() > kMaxTensorElements)
        return Status::error(path_for_message(info->file) + ": tensor " + quote_name(info->name) + " (" +
                             format_shape(info->shape) + ") has " + std::to_string(info->elements()) +
                             " elements, over the limit of " + std::to_string(kMaxTensorElements) +
                             " for one tensor");
    ReadOnlyFile file;
    ATTNLAB_TRY(file.open(info->file));
    if (file.size() < info->end)
        return Status::error(path_for_message(info->file) + " changed since it was opened (it is now " +
                             std::to_string(file.size()) + " bytes, tensor " + quote_name(info->name) +
                             " ends at byte " + std::to_string(info->end) + "); open the model again");
    const std::size_t n = static_cast<std::size_t>(info->end - info->begin);
    const auto read_error = [&](int err)
    {
        return Status::error("cannot read tensor " + quote_name(info->name) + " from " +
                             path_for_message(info->file) + ": " +
                             (err != 0 ? system_reason(err) : std::string("the file is cut short")));
    };
    const std::size_t count = static_cast<std::size_t>(info->elements());
    if (n != count * static_cast<unsigned>(dtype_size(info->dtype)))
        return Status::error("tensor " + quote_name(info->name) + ": " + std::to_string(n) +
                             " bytes do not hold its shape " + format_shape(info->shape) + " in " +
                             dtype_name(info->dtype));
    // Not zero-filled first: every element is written below, or the read fails and m is dropped.
    Mat m(tensor_rows(*info), tensor_cols(*info));
    prepare_tensor_memory(m.data(), count);
    int err = 0;
    if (info->dtype == SafetensorsDtype::F32 && host_is_little_endian())
    {
        // F32 on a little-endian machine: the file's bytes are the floats' bytes, read straight into the
        // matrix (no second buffer: GPT-2's 150 MB embedding is written once, and held once).
        if (n > 0 && !file.read_at(info->begin, n, reinterpret_cast<char*>(m.data()), &err))
            return read_error(err);
    }
    else
    {
        // F16 and BF16: read a slice at a time into a small buffer and converted from there into the matrix,
        // so no copy of the whole tensor's bytes is held beside it (and the slice is converted while in
        // cache).
        constexpr std::size_t kSliceElements = std::size_t{1} << 18;
        const std::size_t size = static_cast<std::size_t>(dtype_size(info->dtype));
        const std::unique_ptr<char[]> slice(new char[std::min(count, kSliceElements) * size + 1]);
        for (std::size_t at = 0; at < count; at += kSliceElements)
        {
            const std::size_t k = std::min(kSliceElements, count - at);
            if (!file.read_at(info->begin + at * size, k * size, slice.get(), &err))
                return read_error(err);
            decode_elements(info->dtype, slice.get(), k, m.data() + at);
        }
    }
    if constexpr (std::is_same_v<Out, Mat>)
        *out = std::move(m);
    else
        *out = Eigen::Map<const RowVec>(m.data(), m.size());
    return Status::ok();
}

} // namespace

void prepare_tensor_memory(float* data, std::size_t count)
{
    constexpr std::size_t kMinBytes = std::size_t{1} << 20; // smaller buffers: too few pages to matter
    const std::size_t bytes = count * sizeof(float);
    if (data == nullptr || bytes < kMinBytes)
        return;
    const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(data);
#if defined(MADV_HUGEPAGE)
    // Only the 2 MB-aligned part inside the buffer, so no huge page reaches into other memory.
    constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
    const std::uintptr_t huge_begin = (start + kHugePage - 1) & ~(kHugePage - 1);
    const std::uintptr_t huge_end = (start + bytes) & ~(kHugePage - 1);
    if (huge_end > huge_begin)
        ::madvise(reinterpret_cast<void*>(huge_begin), huge_end - huge_begin, MADV_HUGEPAGE);
#endif
#if defined(MADV_POPULATE_WRITE)
    // Whole pages inside the buffer (Linux 5.14 on; an older kernel refuses it, which costs only time).
    const std::uintptr_t page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const std::uintptr_t begin = (start + page - 1) & ~(page - 1);
    const std::uintptr_t end = (start + bytes) & ~(page - 1);
    if (end > begin)
        ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#endif
}

const char* dtype_name(SafetensorsDtype dtype)
{
    switch (dtype)
    {
    case SafetensorsDtype::F32:
        return "F32";
    case SafetensorsDtype::F16:
        return "F16";
    case SafetensorsDtype::BF16:
        return "BF16";
    case SafetensorsDtype::Other:
        break;
    }
    return "another dtype";
}

int dtype_size(SafetensorsDtype dtype)
{
    return dtype == SafetensorsDtype::F32 ? 4 : dtype == SafetensorsDtype::Other ? 0 : 2;
}

float f16_to_float(std::uint16_t bits)
{
    const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
    const std::uint32_t exponent = (bits >> 10) & 0x1Fu;
    const std::uint32_t fraction = bits & 0x3FFu;
    std::uint32_t out;
    if (exponent == 0)
    {
        // Zero or subnormal: fraction x 2^-24, exact in float.
        const float magnitude = std::ldexp(static_cast<float>(fraction), -24);
        return sign != 0 ? -magnitude : magnitude;
    }
    if (exponent == 0x1F)
        out = sign | 0x7F800000u | (fraction << 13); // infinity, or NaN with its payload
    else
        out = sign | ((exponent + (127 - 15)) << 23) | (fraction << 13);
    float f;
    std::memcpy(&f, &out, sizeof f);
    return f;
}

float bf16_to_float(std::uint16_t bits)
{
    const std::uint32_t out = static_cast<std::uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &out, sizeof f);
    return f;
}

std::uint64_t TensorInfo::elements() const
{
    std::uint64_t n = 1;
    for (const std::int64_t d : shape)
        n *= static_cast<std::uint64_t>(d); // checked against overflow when the header was read
    return n;
}

const TensorInfo* SafetensorsIndex::find(std::string_view name) const
{
    const auto it = std::lower_bound(tensors.begin(), tensors.end(), name,
                                     [](const TensorInfo& t, std::string_view n) { return t.name < n; });
    return it != tensors.end() && it->name == name ? &*it : nullptr;
}

std::string format_shape(const std::vector<std::int64_t>& shape)
{
    if (shape.empty())
        return "(scalar)";
    std::string text;
    for (std::size_t i = 0; i < shape.size(); ++i)
        text += (i > 0 ? "x" : "") + std::to_string(shape[i]);
    return text;
}

Status parse_safetensors_header(std::string_view header, std::uint64_t data_bytes, std::uint64_t header_end,
                                const std::string& file, SafetensorsIndex* out)
{
    const std::string where = path_for_message(file);
    RootMemberCounter counter(kMaxSafetensorsTensors + 1); // the tensors and "__metadata__"
    try
    {
        json::sax_parse(header.begin(), header.end(), &counter);
    }
    catch (const json::exception&)
    {
        // The parser proper reports what is wrong with the text.
    }
    if (counter.over())
        return Status::error(
            where + ": the header lists more than " + std::to_string(kMaxSafetensorsTensors) +
            " tensors (GPT-2 XL has about 600); the file is damaged or not a model's weights");
    json root;
    JsonRepeatedKey duplicates;
    if (Status s = parse_model_json(header, where, &root, &duplicates); !s)
        return Status::error(s.message() +
                             " (the safetensors header must be JSON; the file is damaged or not a "
                             "safetensors file)");
    if (!root.is_object())
        return Status::error(where + ": the safetensors header must be a JSON object of tensors, got " +
                             describe_json(root));
    if (duplicates.found)
        return Status::error(
            where + ": " +
            (duplicates.root_key.empty()
                 ? "tensor " + quote_name(duplicates.key) + " is listed twice in the header"
                 : quote_name(duplicates.key) + " appears twice in " + quote_name(duplicates.root_key)) +
            "; the file is damaged: write it again");

    SafetensorsIndex index;
    index.files.push_back(file);
    for (auto it = root.begin(); it != root.end(); ++it)
    {
        if (it.key() == "__metadata__")
        {
            ATTNLAB_TRY(read_metadata(*it, file, &index.metadata));
            continue;
        }
        TensorInfo info;
        info.name = it.key();
        info.file = file;
        ATTNLAB_TRY(
            read_entry(*it, where + ": tensor " + quote_name(it.key()), data_bytes, header_end, &info));
        index.tensors.push_back(std::move(info));
    }
    // nlohmann's object is sorted by key, so the tensors are too. Byte ranges must not overlap.
    std::vector<const TensorInfo*> by_offset;
    for (const TensorInfo& t : index.tensors)
        by_offset.push_back(&t);
    std::sort(by_offset.begin(), by_offset.end(),
              [](const TensorInfo* a, const TensorInfo* b)
              { return a->begin != b->begin ? a->begin < b->begin : a->end < b->end; });
    for (std::size_t i = 1; i < by_offset.size(); ++i)
    {
        const TensorInfo &a = *by_offset[i - 1], &b = *by_offset[i];
        if (b.begin < a.end)
            return Status::error(where + ": tensors " + quote_name(a.name) + " and " + quote_name(b.name) +
                                 " share bytes (data_offsets [" + std::to_string(a.begin - header_end) +
                                 ", " + std::to_string(a.end - header_end) + "] and [" +
                                 std::to_string(b.begin - header_end) + ", " +
                                 std::to_string(b.end - header_end) + "]); the header is damaged");
    }
    *out = std::move(index);
    return Status::ok();
}

Status open_safetensors_file(const std::string& path, SafetensorsIndex* out)
{
    const std::string where = path_for_message(path);
    ReadOnlyFile file;
    ATTNLAB_TRY(file.open(path));
    if (file.size() < 8)
        return Status::error(where + " is " + std::to_string(file.size()) +
                             " bytes, too short for a safetensors file (8 bytes of header length, then the "
                             "header); the file is cut short or not a safetensors file");
    unsigned char length_bytes[8];
    int err = 0;
    if (!file.read_at(0, 8, reinterpret_cast<char*>(length_bytes), &err))
        return Status::error("cannot read " + where + ": " +
                             (err != 0 ? system_reason(err) : std::string("the file is cut short")));
    std::uint64_t length = 0;
    for (int i = 7; i >= 0; --i)
        length = (length << 8) | length_bytes[i];
    if (length > file.size() - 8)
        return Status::error(where + ": the header length " + std::to_string(length) +
                             " (the first 8 bytes) goes past the end of the file (" +
                             std::to_string(file.size()) +
                             " bytes); the file is cut short or not a safetensors file");
    if (length == 0)
        return Status::error(where +
                             ": the header length (the first 8 bytes) is 0, so there is no JSON header, "
                             "which every safetensors file starts with; the file is damaged or not a "
                             "safetensors file");
    if (length > kMaxSafetensorsHeaderBytes)
        return Status::error(
            where + ": the header length " + std::to_string(length) + " bytes is over the limit of " +
            std::to_string(kMaxSafetensorsHeaderBytes) +
            " bytes (100 MiB) for a safetensors header; the file is damaged or not a safetensors file");
    std::string header(static_cast<std::size_t>(length), '\0');
    if (!file.read_at(8, header.size(), header.data(), &err))
        return Status::error("cannot read " + where + ": " +
                             (err != 0 ? system_reason(err) : std::string("the file is cut short")));
    return parse_safetensors_header(header, file.size() - 8 - length, 8 + length, path, out);
}

Status open_safetensors(const std::string& path, SafetensorsIndex* out)
{
    std::error_code ec;
    if (!fs::is_directory(path, ec))
        return open_safetensors_file(path, out);
    const fs::path folder(path);
    // A link counts as there even when it leads nowhere (dangling, a loop): opening it then says so, where
    // "no model.safetensors in the folder" would send the user looking for a file they can see.
    const auto present = [&](const char* name) { return path_present(folder / name); };
    // The single file first, as transformers' from_pretrained does: an index left beside it from an earlier
    // sharded download does not win.
    if (present(kSingleFileName))
        return open_safetensors_file((folder / kSingleFileName).string(), out);
    if (present(kIndexFileName))
        return open_sharded(folder, out);
    return no_safetensors_status(folder);
}

Status decode_tensor(const TensorInfo& info, std::string_view bytes, Mat* out)
{
    const int size = dtype_size(info.dtype);
    const std::uint64_t n = info.elements();
    if (size == 0)
        return Status::error("tensor " + quote_name(info.name) + " has dtype " + info.dtype_text +
                             ", which Attention Lab does not read; supported: " + kSupportedDtypes);
    if (n > kMaxTensorElements || bytes.size() != n * static_cast<unsigned>(size))
        return Status::error("tensor " + quote_name(info.name) + ": " + std::to_string(bytes.size()) +
                             " bytes do not hold its shape " + format_shape(info.shape) + " in " +
                             dtype_name(info.dtype));
    Mat m(tensor_rows(info), tensor_cols(info));
    if (n == 0)
    {
        *out = std::move(m);
        return Status::ok();
    }
    decode_elements(info.dtype, bytes.data(), static_cast<std::size_t>(n), m.data());
    *out = std::move(m);
    return Status::ok();
}

Status read_tensor(const SafetensorsIndex& index, std::string_view name, Mat* out)
{
    return read_tensor_into(index, name, out);
}

Status read_tensor(const SafetensorsIndex& index, std::string_view name, RowVec* out)
{
    const TensorInfo* info = index.find(name);
    if (info != nullptr && info->shape.size() != 1)
        return Status::error(path_for_message(info->file) + ": tensor " + quote_name(info->name) +
                             " has the shape " + format_shape(info->shape) +
                             ", expected a vector (one dimension)");
    return read_tensor_into(index, name, out);
}

} // namespace attnlab
