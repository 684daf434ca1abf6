// Safetensors reader: the tensor index of a .safetensors file or a Hugging Face model folder (one file or
// shards named by model.safetensors.index.json), and single tensors read by offset and converted to float.
#pragma once

#include "core/matrix.h"
#include "core/status.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab
{

// Limits of the reader (core/io/FORMAT.md, "Safetensors"). The file itself has no size limit: only its header
// and the tensors asked for are read, each by its byte range.
inline constexpr std::uint64_t kMaxSafetensorsHeaderBytes = std::uint64_t{100} << 20; // the JSON header
// Tensors in one file: GPT-2 XL's has about 600. A header is counted before it is parsed into memory (about
// 17 bytes of memory per byte of JSON), so a 100 MiB header of a million empty tensors is refused at once.
inline constexpr std::size_t kMaxSafetensorsTensors = 100000;
inline constexpr std::uint64_t kMaxTensorElements = std::uint64_t{1} << 28; // one tensor read: 1 GB as float
inline constexpr int kMaxTensorRank = 8;

// The dtypes read (each converted to float). A header may also hold tensors of the format's other dtypes
// (BOOL, U8, I8, F8_E5M2, F8_E4M3, F8_E8M0, I16, U16, I32, U32, F64, I64, U64: an I64 position_ids buffer
// beside float weights is common), listed as Other and refused when read, naming the supported ones; a dtype
// name the format does not have is refused when the header is read.
enum class SafetensorsDtype
{
    F32,
    F16,
    BF16,
    Other,
};

// "F32", "F16", "BF16" ("another dtype" for Other).
const char* dtype_name(SafetensorsDtype dtype);
// Bytes of one element: 4, 2, 2 (0 for Other).
int dtype_size(SafetensorsDtype dtype);

// IEEE 754 half (1 sign, 5 exponent, 10 fraction bits) to float, exactly: subnormals, ±0, ±inf and NaN kept.
float f16_to_float(std::uint16_t bits);
// bfloat16 (the upper 16 bits of a float) to float, exactly.
float bf16_to_float(std::uint16_t bits);

// One tensor of the index: where its bytes are, not the bytes.
struct TensorInfo
{
    std::string name;
    SafetensorsDtype dtype = SafetensorsDtype::F32;
    std::string dtype_text = "F32";  // as written in the header ("I64")
    std::vector<std::int64_t> shape; // as in the header; {} is a scalar (one element)
    std::uint64_t begin = 0;         // byte range [begin, end) in file, from the start of the file
    std::uint64_t end = 0;
    std::string file; // the .safetensors file holding it

    std::uint64_t elements() const; // product of shape (1 for a scalar)
};

// Every tensor of a file or a folder, sorted by name, names unique.
struct SafetensorsIndex
{
    std::vector<TensorInfo> tensors;
    std::map<std::string, std::string> metadata; // the header's "__metadata__" (of the first shard)
    std::vector<std::string> files;              // the .safetensors files read, in order

    // The tensor of that name, or nullptr.
    const TensorInfo* find(std::string_view name) const;
};

// Checks a header and lists its tensors. header is the JSON text, data_bytes the size of the data that
// follows it in the file, header_end the file offset where that data starts (8 + header length), and file
// names the file in messages and in each TensorInfo. Refuses (out unchanged): text that is not a JSON object,
// a repeated name, a tensor without "dtype", "shape" or "data_offsets" or with one of the wrong type, a
// dtype the format does not have (the supported ones named), more than kMaxTensorRank dimensions, a negative
// or overflowing shape, offsets past the data,
// reversed, overlapping another tensor's, or not matching shape x dtype size, and a "__metadata__" that is
// not an object of strings.
Status parse_safetensors_header(std::string_view header, std::uint64_t data_bytes, std::uint64_t header_end,
                                const std::string& file, SafetensorsIndex* out);

// Opens one .safetensors file (a regular file: a folder, a device or a FIFO is refused) and reads its
// 8-byte little-endian header length and its header, nothing else. A length past the end of the file or
// over kMaxSafetensorsHeaderBytes is refused. out is unchanged on error.
Status open_safetensors_file(const std::string& path, SafetensorsIndex* out);

// Opens a Hugging Face model folder: model.safetensors.index.json when there (its "weight_map" names each
// tensor's shard, a plain file name in the folder; every shard is opened and every tensor it names must be in
// it; tensors of a shard the map does not name are left out), otherwise model.safetensors. A folder holding
// only pytorch_model.bin (or other non-safetensors weights) gets a message saying how to convert it. A path
// to a .safetensors file opens that file. out is unchanged on error.
Status open_safetensors(const std::string& path, SafetensorsIndex* out);

// Converts a tensor's raw bytes (bytes.size() == (end - begin)) to float in row-major order into out, as
// read_tensor shapes it. No alignment is assumed.
Status decode_tensor(const TensorInfo& info, std::string_view bytes, Mat* out);

// Reads one tensor from its file by its byte range and converts it to float: a scalar as 1 x 1, a vector of
// n as 1 x n, a matrix as rows x cols, a tensor of higher rank as (product of all but the last) x last.
// Refuses a tensor over kMaxTensorElements, a name not in the index (the message says so), a dtype that is
// not F32, F16 or BF16 (the message names them), and a file that
// changed since it was opened (shorter, or no longer a regular file). out is unchanged on error.
Status read_tensor(const SafetensorsIndex& index, std::string_view name, Mat* out);
// The same for a tensor of rank 1 (a bias, a LayerNorm gain); another rank is refused.
Status read_tensor(const SafetensorsIndex& index, std::string_view name, RowVec* out);

// Readies a buffer of count floats that is about to be written in full (a tensor read, split or transposed
// into it): asks Linux for 2 MB pages where the buffer covers them and maps its pages in one call, instead of
// one page fault per 4 KB page at the first write (GPT-2 small: 134k faults, which took most of the time to
// open it on a virtual machine). Only a hint: the contents are unchanged, and buffers under 1 MB or a system
// without these calls are left as they are.
void prepare_tensor_memory(float* data, std::size_t count);

// "768x2304", "(scalar)": a shape for messages.
std::string format_shape(const std::vector<std::int64_t>& shape);

} // namespace attnlab
